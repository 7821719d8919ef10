import FeedModel
import GRDB
import LibraryStore

extension Schema {
    /// Published collections and following them (issue 29, `SharingRule`).
    ///
    /// `published_collections` is a collection's links, live (`withdrawn_at` NULL, at most one
    /// per collection) or withdrawn. Withdrawal is one rule, kept here: unpublishing sets
    /// `withdrawn_at`; a collection deleted (by hand, or with its owner) sets it first
    /// (`collections_withdrawn`), then lets go of the link (`ON DELETE SET NULL`), whose row stays,
    /// so its link answers "withdrawn" for good and never "unknown".
    ///
    /// `followed_collections` is what a user follows: a link of this library (`link`: read live
    /// from the collection) or another server's JSON (`source_url`: its name, owner and items as
    /// the last refresh read them, `items` a JSON array, refreshed when `next_refresh` comes). A
    /// follow keeps the collection's name, description, cover and owner's name, so a withdrawn
    /// one is still shown by name; triggers keep a local one's in step with its collection and
    /// mark it withdrawn with its link. Whatever a follower sees change (`version` moved, or
    /// `withdrawn_at` set) is a row of their change log (`followed`), so their event stream hears
    /// of it whoever made it (the owner in a browser, the CLI, a sync reading another server).
    ///
    /// The change log's `kind` CHECK gains `followed`: SQLite cannot change a CHECK, so the
    /// table is made again with its rows (the triggers of other tables that write to it name it,
    /// and are left as they are: `legacy_alter_table` keeps the rename from reading them).
    static func v23PublishedCollections(_ db: Database) throws {
        // The kinds as this migration ships them (a later kind needs a migration of its own).
        let kinds = "'watch', 'saved', 'collection', 'subscription', 'sync', 'followed'"
        let log = { (row: String, action: String) in
            "INSERT INTO changes (user_id, kind, payload) VALUES (\(row).user_id, 'followed', json_object('followed_id', \(row).id, 'action', \(action)));"
        }
        // The followers of collection `collection`'s live link see something new.
        let touchFollowers = { (collection: String) in
            """
            UPDATE followed_collections SET version = version + 1
                WHERE link IN (SELECT id FROM published_collections WHERE collection = \(collection) AND withdrawn_at IS NULL);
            """
        }
        try db.execute(sql: "PRAGMA legacy_alter_table = ON")
        try db.execute(sql: """
            CREATE TABLE changes_v23 (
                seq INTEGER PRIMARY KEY,
                user_id INTEGER NOT NULL,
                kind TEXT NOT NULL CHECK (kind IN (\(kinds))),
                payload TEXT NOT NULL CHECK (json_valid(payload)),
                at INTEGER NOT NULL DEFAULT (unixepoch())
            ) STRICT;
            INSERT INTO changes_v23 (seq, user_id, kind, payload, at) SELECT seq, user_id, kind, payload, at FROM changes;
            DROP TABLE changes;
            ALTER TABLE changes_v23 RENAME TO changes;
            CREATE TRIGGER changes_pruned AFTER INSERT ON changes WHEN NEW.seq % \(ChangeFeedRule.pruneEvery) = 0 BEGIN
                DELETE FROM changes WHERE seq <= NEW.seq - \(ChangeFeedRule.kept);
            END;
            """)
        try db.execute(sql: "PRAGMA legacy_alter_table = OFF")
        try db.execute(sql: """
            CREATE TABLE published_collections (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                token TEXT NOT NULL UNIQUE CHECK (length(token) = \(SharingRule.tokenCharacters)),
                collection INTEGER REFERENCES collections(id) ON DELETE SET NULL,
                published_at INTEGER NOT NULL,
                withdrawn_at INTEGER,
                -- A live link has its collection; a withdrawn one may have lost it.
                CHECK (withdrawn_at IS NOT NULL OR collection IS NOT NULL)
            ) STRICT;
            CREATE UNIQUE INDEX published_collections_live ON published_collections (collection) WHERE withdrawn_at IS NULL;
            CREATE INDEX published_collections_collection ON published_collections (collection);

            CREATE TABLE followed_collections (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                user_id INTEGER NOT NULL DEFAULT \(ownerID) REFERENCES users(id) ON DELETE CASCADE,
                url TEXT NOT NULL CHECK (url <> ''),
                link INTEGER REFERENCES published_collections(id) ON DELETE CASCADE,
                source_url TEXT CHECK (source_url <> ''),
                private_addresses INTEGER NOT NULL DEFAULT 0 CHECK (private_addresses IN (0, 1)),
                name TEXT NOT NULL,
                description TEXT,
                owner_name TEXT NOT NULL,
                cover_url TEXT,
                items TEXT CHECK (items IS NULL OR json_type(items) = 'array'),
                version INTEGER NOT NULL DEFAULT 0,
                followed_at INTEGER NOT NULL,
                refreshed_at INTEGER,
                next_refresh INTEGER,
                last_error TEXT,
                withdrawn_at INTEGER,
                -- This library's link, or another server's JSON.
                CHECK ((link IS NULL) <> (source_url IS NULL)),
                UNIQUE (user_id, link),
                UNIQUE (user_id, source_url)
            ) STRICT;
            CREATE INDEX followed_collections_link ON followed_collections (link);
            CREATE INDEX followed_collections_due ON followed_collections (next_refresh) WHERE source_url IS NOT NULL AND withdrawn_at IS NULL;

            CREATE TRIGGER collections_withdrawn BEFORE DELETE ON collections BEGIN
                UPDATE published_collections SET withdrawn_at = unixepoch() WHERE collection = OLD.id AND withdrawn_at IS NULL;
            END;
            CREATE TRIGGER published_collections_withdrawn AFTER UPDATE OF withdrawn_at ON published_collections
            WHEN OLD.withdrawn_at IS NULL AND NEW.withdrawn_at IS NOT NULL BEGIN
                UPDATE followed_collections SET withdrawn_at = NEW.withdrawn_at WHERE link = NEW.id AND withdrawn_at IS NULL;
            END;
            CREATE TRIGGER collections_followers_updated AFTER UPDATE OF name, description, cover_url ON collections
            WHEN OLD.name IS NOT NEW.name OR OLD.description IS NOT NEW.description OR OLD.cover_url IS NOT NEW.cover_url BEGIN
                UPDATE followed_collections SET name = NEW.name, description = NEW.description, cover_url = NEW.cover_url, version = version + 1
                    WHERE link IN (SELECT id FROM published_collections WHERE collection = NEW.id AND withdrawn_at IS NULL);
            END;
            CREATE TRIGGER collection_items_followers_inserted AFTER INSERT ON collection_items BEGIN
                \(touchFollowers("NEW.collection"))
            END;
            CREATE TRIGGER collection_items_followers_deleted AFTER DELETE ON collection_items BEGIN
                \(touchFollowers("OLD.collection"))
            END;
            -- Renumbering: one row, the one that becomes first (as the owner's log).
            CREATE TRIGGER collection_items_followers_renumbered AFTER UPDATE OF position ON collection_items
            WHEN NEW.position = 1 AND OLD.position <> 1 BEGIN
                \(touchFollowers("NEW.collection"))
            END;

            CREATE TRIGGER followed_collections_logged_inserted AFTER INSERT ON followed_collections BEGIN
                \(log("NEW", "'added'"))
            END;
            CREATE TRIGGER followed_collections_logged_updated AFTER UPDATE OF version, withdrawn_at ON followed_collections
            WHEN OLD.version <> NEW.version OR OLD.withdrawn_at IS NOT NEW.withdrawn_at BEGIN
                \(log("NEW", "CASE WHEN OLD.withdrawn_at IS NULL AND NEW.withdrawn_at IS NOT NULL THEN 'withdrawn' ELSE 'updated' END"))
            END;
            CREATE TRIGGER followed_collections_logged_deleted AFTER DELETE ON followed_collections BEGIN
                \(log("OLD", "'removed'"))
            END;
            """)
    }
}
