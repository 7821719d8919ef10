import FeedModel
import GRDB
import LibraryStore

extension Schema {
    /// The change log `/api/events` streams (`ChangeFeed`, issue 27): a row per change to a
    /// user's state, written by triggers, so every process that writes the library (the CLI, the
    /// daemon's checkpoints, any poller, the server) is heard without telling anyone. Only real
    /// changes make rows: a watch state whose mark or progress moved, a saved item added,
    /// updated (its `updated_at` written: one row per update) or removed, a collection created,
    /// renamed or re-described, deleted, or its items added, removed or renumbered (one row per
    /// renumbering: the row that becomes first), a subscription added, paused or resumed or
    /// re-speeded, removed; and for a poll, a row per subscriber when it found items (the
    /// subscription's count, written once per changed feed: v17) or its error changed. A poll
    /// that changed nothing writes none, and no trigger fires per item ingested. One person's
    /// action may make more than one row (a collection's item removed, then the rest renumbered).
    ///
    /// `seq` only grows: a rowid is the largest one plus one, and pruning never deletes the
    /// newest row (AUTOINCREMENT would also write `sqlite_sequence` with every change: a page more
    /// per transaction). A rolled-back write takes its numbers back, so the log has no holes but
    /// the pruned front; a log emptied by hand starts over, and a reader past its end is told
    /// `gone`. `user_id` has no foreign key: removing a user deletes
    /// their rows by cascade, whose triggers then log changes for a user already gone (a
    /// foreign key would refuse them and the removal with them); those rows are pruned as any.
    /// Pruning (`ChangeFeedRule`): every `pruneEvery`-th change deletes those older than `kept`.
    static func v19Changes(_ db: Database) throws {
        let log = { (user: String, kind: Change.Kind, payload: String) in
            "INSERT INTO changes (user_id, kind, payload) VALUES (\(user), '\(kind.rawValue)', json_object(\(payload)));"
        }
        let watched = "'watched', json(CASE WHEN NEW.watched = 1 THEN 'true' ELSE 'false' END)"
        // A collection's items are its owner's (no row when there is no such collection: the
        // foreign key then refuses the write, as without the log).
        let logItems = { (collection: String) in
            """
            INSERT INTO changes (user_id, kind, payload)
                SELECT user_id, 'collection', json_object('collection_id', id, 'action', 'items') FROM collections WHERE id = \(collection);
            """
        }
        try db.execute(sql: """
            CREATE TABLE changes (
                seq INTEGER PRIMARY KEY,
                user_id INTEGER NOT NULL,
                kind TEXT NOT NULL CHECK (kind IN ('watch', 'saved', 'collection', 'subscription', 'sync')),
                payload TEXT NOT NULL CHECK (json_valid(payload)),
                at INTEGER NOT NULL DEFAULT (unixepoch())
            ) STRICT;
            CREATE TRIGGER changes_pruned AFTER INSERT ON changes WHEN NEW.seq % \(ChangeFeedRule.pruneEvery) = 0 BEGIN
                DELETE FROM changes WHERE seq <= NEW.seq - \(ChangeFeedRule.kept);
            END;

            CREATE TRIGGER watch_state_logged_inserted AFTER INSERT ON watch_state BEGIN
                \(log("NEW.user_id", .watch, "'item_id', NEW.item, \(watched), 'progress_seconds', NEW.progress_seconds"))
            END;
            CREATE TRIGGER watch_state_logged_updated AFTER UPDATE OF watched, progress_seconds ON watch_state
            WHEN OLD.watched <> NEW.watched OR OLD.progress_seconds <> NEW.progress_seconds BEGIN
                \(log("NEW.user_id", .watch, "'item_id', NEW.item, \(watched), 'progress_seconds', NEW.progress_seconds"))
            END;

            CREATE TRIGGER saved_items_logged_inserted AFTER INSERT ON saved_items BEGIN
                \(log("NEW.user_id", .saved, "'saved_id', NEW.id, 'item_id', NEW.item, 'action', 'added'"))
            END;
            CREATE TRIGGER saved_items_logged_updated AFTER UPDATE OF updated_at ON saved_items BEGIN
                \(log("NEW.user_id", .saved, "'saved_id', NEW.id, 'item_id', NEW.item, 'action', 'updated'"))
            END;
            CREATE TRIGGER saved_items_logged_deleted AFTER DELETE ON saved_items BEGIN
                \(log("OLD.user_id", .saved, "'saved_id', OLD.id, 'item_id', OLD.item, 'action', 'removed'"))
            END;

            CREATE TRIGGER collections_logged_inserted AFTER INSERT ON collections BEGIN
                \(log("NEW.user_id", .collection, "'collection_id', NEW.id, 'action', 'created'"))
            END;
            CREATE TRIGGER collections_logged_updated AFTER UPDATE OF name, description, cover_url, sort_order ON collections
            WHEN OLD.name IS NOT NEW.name OR OLD.description IS NOT NEW.description OR OLD.cover_url IS NOT NEW.cover_url
                OR OLD.sort_order IS NOT NEW.sort_order BEGIN
                \(log("NEW.user_id", .collection, "'collection_id', NEW.id, 'action', 'updated'"))
            END;
            CREATE TRIGGER collections_logged_deleted AFTER DELETE ON collections BEGIN
                \(log("OLD.user_id", .collection, "'collection_id', OLD.id, 'action', 'deleted'"))
            END;
            CREATE TRIGGER collection_items_logged_inserted AFTER INSERT ON collection_items BEGIN
                \(logItems("NEW.collection"))
            END;
            -- A deleted collection's items go by cascade after it, and log nothing: its `deleted` says it all.
            CREATE TRIGGER collection_items_logged_deleted AFTER DELETE ON collection_items BEGIN
                \(logItems("OLD.collection"))
            END;
            -- Renumbering moves every position out of the way (negative), then sets each: one row, the first.
            CREATE TRIGGER collection_items_logged_renumbered AFTER UPDATE OF position ON collection_items
            WHEN NEW.position = 1 AND OLD.position <> 1 BEGIN
                \(logItems("NEW.collection"))
            END;

            CREATE TRIGGER subscriptions_logged_inserted AFTER INSERT ON subscriptions BEGIN
                \(log("NEW.user_id", .subscription, "'channel_id', NEW.channel_id, 'action', 'added'"))
            END;
            CREATE TRIGGER subscriptions_logged_updated AFTER UPDATE OF active, speed ON subscriptions
            WHEN OLD.active <> NEW.active OR OLD.speed <> NEW.speed BEGIN
                \(log("NEW.user_id", .subscription, "'channel_id', NEW.channel_id, 'action', 'updated'"))
            END;
            CREATE TRIGGER subscriptions_logged_deleted AFTER DELETE ON subscriptions BEGIN
                \(log("OLD.user_id", .subscription, "'channel_id', OLD.channel_id, 'action', 'removed'"))
            END;
            -- A poll's new items: the ingest writes each subscription's count once per changed
            -- feed (v17); a new subscription's first count is its channel's items, new to its user.
            CREATE TRIGGER subscriptions_logged_synced AFTER UPDATE OF items ON subscriptions
            WHEN NEW.items > OLD.items BEGIN
                \(log("NEW.user_id", .sync, "'channel_id', NEW.channel_id, 'new_items', NEW.items - OLD.items, 'error', NULL"))
            END;
            CREATE TRIGGER channels_logged_error AFTER UPDATE OF last_error ON channels
            WHEN OLD.last_error IS NOT NEW.last_error BEGIN
                INSERT INTO changes (user_id, kind, payload)
                    SELECT user_id, 'sync', json_object('channel_id', NEW.id, 'new_items', 0, 'error', NEW.last_error)
                    FROM subscriptions WHERE channel_id = NEW.id;
            END;
            """)
    }
}
