import FeedModel
import Foundation
import GRDB

/// The library's schema as named, forward-only migrations. Never edit a shipped migration:
/// add a new one. The schema, not Swift code, enforces integrity.
enum Schema {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-initial", migrate: v1Initial)
        migrator.registerMigration("v2-playback-speed", migrate: v2PlaybackSpeed)
        migrator.registerMigration("v3-item-watch-state", migrate: v3ItemWatchState)
        migrator.registerMigration("v4-chapters-cache", migrate: v4ChaptersCache)
        migrator.registerMigration("v5-remembered-speed", migrate: v5RememberedSpeed)
        migrator.registerMigration("v6-speed-range", migrate: v6SpeedRange)
        migrator.registerMigration("v7-ids-never-reused", migrate: v7IDsNeverReused)
        migrator.registerMigration("v8-search", migrate: v8Search)
        migrator.registerMigration("v9-up-next-and-player-state", migrate: v9UpNextAndPlayerState)
        migrator.registerMigration("v10-feed-details", migrate: v10FeedDetails)
        migrator.registerMigration("v11-users", migrate: v11Users)
        migrator.registerMigration("v12-search-one-character-prefixes", migrate: v12SearchOneCharacterPrefixes)
        migrator.registerMigration("v13-gpodder", migrate: v13GPodder)
        migrator.registerMigration("v14-saved-and-collections", migrate: v14SavedAndCollections)
        migrator.registerMigration("v15-feed-item-counts", migrate: v15FeedItemCounts)
        migrator.registerMigration("v16-pending-episode-actions", migrate: v16PendingEpisodeActions)
        migrator.registerMigration("v17-feed-counts-per-feed", migrate: v17FeedCountsPerFeed)
        migrator.registerMigration("v18-address-reach", migrate: v18AddressReach)
        migrator.registerMigration("v19-changes", migrate: v19Changes)
        migrator.registerMigration("v20-notes-html", migrate: v20NotesHTML)
        migrator.registerMigration("v21-notes-markup", migrate: v21NotesMarkup)
        migrator.registerMigration("v23-published-collections", migrate: v23PublishedCollections)
        migrator.registerMigration("v24-user-identities", migrate: v24UserIdentities)
        migrator.registerMigration("v25-sign-ins", migrate: v25SignIns)
        migrator.registerMigration("v26-feed-watched-counts", migrate: v26FeedWatchedCounts)
        return migrator
    }

    /// `ShortForm` over an `items` row, as the `items_short` partial index and the short-form query
    /// spell it (SQLite uses a partial index only for a query repeating its WHERE). Migrations
    /// keep the SQL they shipped with; a test checks the index still says this, so changing
    /// `ShortForm.maxDuration` needs a migration that rebuilds the index.
    static let shortFormPredicate = "duration <= \(ShortForm.maxDuration) OR is_short = 1"

    /// Names of all migrations, oldest first (tests migrate up to a given one).
    static let migrationNames = ["v1-initial", "v2-playback-speed", "v3-item-watch-state", "v4-chapters-cache",
                                 "v5-remembered-speed", "v6-speed-range", "v7-ids-never-reused",
                                 "v8-search", "v9-up-next-and-player-state", "v10-feed-details", "v11-users",
                                 "v12-search-one-character-prefixes", "v13-gpodder",
                                 "v14-saved-and-collections", "v15-feed-item-counts",
                                 "v16-pending-episode-actions", "v17-feed-counts-per-feed", "v18-address-reach",
                                 "v19-changes", "v20-notes-html", "v21-notes-markup",
                                 "v23-published-collections", "v24-user-identities", "v25-sign-ins",
                                 "v26-feed-watched-counts"]

    /// `SearchRule`'s weights as the search index's rank spells them (bm25's arguments follow
    /// the index's columns: title, notes, channel). A test checks the live index still says this.
    static let searchRank = "bm25(\(SearchRule.titleWeight), \(SearchRule.notesWeight), \(SearchRule.channelWeight))"

    /// `PlayerVolume.range` as the `player_state.volume` CHECK spells it (a test checks the live schema).
    static let volumeCheck = "volume >= \(PlayerVolume.range.lowerBound) AND volume <= \(PlayerVolume.range.upperBound)"

    /// `PlaybackSpeed.range` as the `channels.speed` CHECK spells it. A test checks the live
    /// schema still says this, so changing the range needs a migration.
    static let speedCheck = "speed >= \(PlaybackSpeed.range.lowerBound) AND speed <= \(PlaybackSpeed.range.upperBound)"

    static func v1Initial(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE channels (
                id INTEGER PRIMARY KEY,
                platform TEXT NOT NULL CHECK (platform IN ('youtube', 'rumble', 'podcast')),
                source_url TEXT NOT NULL CHECK (source_url <> ''),
                feed_url TEXT NOT NULL UNIQUE CHECK (feed_url <> ''),
                name TEXT NOT NULL,
                image TEXT,
                active INTEGER NOT NULL DEFAULT 1 CHECK (active IN (0, 1)),
                added_at INTEGER NOT NULL,
                last_synced INTEGER,
                last_error TEXT,
                consecutive_errors INTEGER NOT NULL DEFAULT 0 CHECK (consecutive_errors >= 0),
                next_poll INTEGER,
                etag TEXT,
                last_modified TEXT,
                body_hash TEXT
            ) STRICT;

            CREATE TABLE items (
                id INTEGER PRIMARY KEY,
                channel_id INTEGER NOT NULL REFERENCES channels(id) ON DELETE CASCADE,
                item_id TEXT NOT NULL CHECK (item_id <> ''),
                guid TEXT,
                title TEXT NOT NULL,
                url TEXT,
                published INTEGER,
                updated INTEGER,
                duration INTEGER CHECK (duration >= 0),
                enclosure_url TEXT,
                enclosure_type TEXT,
                enclosure_length INTEGER CHECK (enclosure_length >= 0),
                thumbnail TEXT,
                author TEXT,
                description TEXT,
                views INTEGER CHECK (views >= 0),
                is_short INTEGER NOT NULL DEFAULT 0 CHECK (is_short IN (0, 1)),
                episode INTEGER,
                season INTEGER,
                chapters_url TEXT,
                transcript_url TEXT,
                discovered_at INTEGER NOT NULL,
                UNIQUE (channel_id, item_id)
            ) STRICT;
            -- newest: published DESC (NULLs sort lowest, so unknown dates come last), then discovery.
            CREATE INDEX items_newest ON items (published, discovered_at);
            -- per-channel listings and catch-up's per-channel windows.
            CREATE INDEX items_channel_published ON items (channel_id, published, discovered_at);
            -- short-form: only the short items, already in newest order.
            CREATE INDEX items_short ON items (published, discovered_at)
                WHERE duration <= 180 OR is_short = 1;

            CREATE TABLE watch_state (
                item INTEGER PRIMARY KEY REFERENCES items(id) ON DELETE CASCADE,
                watched INTEGER NOT NULL DEFAULT 0 CHECK (watched IN (0, 1)),
                progress_seconds INTEGER NOT NULL DEFAULT 0 CHECK (progress_seconds >= 0),
                watched_at INTEGER,
                updated_at INTEGER NOT NULL,
                CHECK (watched = 1 OR watched_at IS NULL)
            ) STRICT;
            -- catch-up's resume list: in-progress items, most recently played first.
            CREATE INDEX watch_state_in_progress ON watch_state (updated_at)
                WHERE watched = 0 AND progress_seconds > 0;

            CREATE TABLE saved_items (
                item INTEGER PRIMARY KEY REFERENCES items(id) ON DELETE CASCADE,
                saved_at INTEGER NOT NULL
            ) STRICT;

            CREATE TABLE collections (
                id INTEGER PRIMARY KEY,
                name TEXT NOT NULL UNIQUE CHECK (name <> ''),
                created_at INTEGER NOT NULL
            ) STRICT;

            CREATE TABLE collection_items (
                collection INTEGER NOT NULL REFERENCES collections(id) ON DELETE CASCADE,
                item INTEGER NOT NULL REFERENCES items(id) ON DELETE CASCADE,
                position INTEGER NOT NULL,
                added_at INTEGER NOT NULL,
                PRIMARY KEY (collection, item),
                UNIQUE (collection, position)
            ) STRICT;
            CREATE INDEX collection_items_item ON collection_items (item);

            -- History outlives channels: what was played is copied here, the link is optional.
            CREATE TABLE play_history (
                id INTEGER PRIMARY KEY,
                item INTEGER REFERENCES items(id) ON DELETE SET NULL,
                title TEXT NOT NULL,
                channel_name TEXT NOT NULL,
                url TEXT,
                position_seconds INTEGER CHECK (position_seconds >= 0),
                played_at INTEGER NOT NULL
            ) STRICT;
            CREATE INDEX play_history_item ON play_history (item);
            CREATE INDEX play_history_played ON play_history (played_at);
            """)
    }

    /// Per-channel playback speed, which the player remembers per show.
    static func v2PlaybackSpeed(_ db: Database) throws {
        try db.execute(sql: """
            ALTER TABLE channels ADD COLUMN speed REAL NOT NULL DEFAULT 1.0
                CHECK (speed >= 0.25 AND speed <= 4.0)
            """)
    }

    /// Whether a channel's speed was chosen (v2's default of 1.0 could not tell "remembered 1×"
    /// from "never set"). Speeds other than 1.0 can only have been set, so they count as chosen.
    static func v5RememberedSpeed(_ db: Database) throws {
        try db.execute(sql: """
            ALTER TABLE channels ADD COLUMN speed_set INTEGER NOT NULL DEFAULT 0 CHECK (speed_set IN (0, 1));
            UPDATE channels SET speed_set = 1 WHERE speed <> 1.0;
            """)
    }

    /// The speed a channel remembers is the player's range (`PlaybackSpeed`: 0.5–3), which v2's
    /// CHECK (0.25–4) contradicted. SQLite cannot change a CHECK in place: the table is rebuilt
    /// (SQLite's documented procedure; the migrator turns foreign key checks off meanwhile and
    /// checks them after) and a remembered speed outside the range is clamped into it.
    static func v6SpeedRange(_ db: Database) throws {
        let range = PlaybackSpeed.range
        try db.execute(sql: """
            CREATE TABLE channels_v6 (
                id INTEGER PRIMARY KEY,
                platform TEXT NOT NULL CHECK (platform IN ('youtube', 'rumble', 'podcast')),
                source_url TEXT NOT NULL CHECK (source_url <> ''),
                feed_url TEXT NOT NULL UNIQUE CHECK (feed_url <> ''),
                name TEXT NOT NULL,
                image TEXT,
                active INTEGER NOT NULL DEFAULT 1 CHECK (active IN (0, 1)),
                added_at INTEGER NOT NULL,
                last_synced INTEGER,
                last_error TEXT,
                consecutive_errors INTEGER NOT NULL DEFAULT 0 CHECK (consecutive_errors >= 0),
                next_poll INTEGER,
                etag TEXT,
                last_modified TEXT,
                body_hash TEXT,
                speed REAL NOT NULL DEFAULT 1.0 CHECK (\(speedCheck)),
                speed_set INTEGER NOT NULL DEFAULT 0 CHECK (speed_set IN (0, 1))
            ) STRICT;
            INSERT INTO channels_v6
                SELECT id, platform, source_url, feed_url, name, image, active, added_at, last_synced, last_error,
                       consecutive_errors, next_poll, etag, last_modified, body_hash,
                       min(max(speed, \(range.lowerBound)), \(range.upperBound)), speed_set
                FROM channels;
            DROP TABLE channels;
            ALTER TABLE channels_v6 RENAME TO channels;
            """)
    }

    /// Fetched `podcast:chapters` files, one per item, keyed by the URL they came from (a feed
    /// that changes the URL makes the cache miss). Goes with the item.
    static func v4ChaptersCache(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE chapters_cache (
                item INTEGER PRIMARY KEY REFERENCES items(id) ON DELETE CASCADE,
                url TEXT NOT NULL CHECK (url <> ''),
                body TEXT NOT NULL,
                fetched_at INTEGER NOT NULL
            ) STRICT
            """)
    }

    /// A copy of each item's watch state on the item itself (0 untouched, 1 in progress,
    /// 2 watched), kept by triggers, so that catch-up reads its window from one index instead
    /// of joining watch_state row by row (100x slower on a million items); and the date
    /// indexes widened with the channel.
    static func v3ItemWatchState(_ db: Database) throws {
        let state = "CASE WHEN NEW.watched = 1 THEN 2 WHEN NEW.progress_seconds > 0 THEN 1 ELSE 0 END"
        try db.execute(sql: """
            ALTER TABLE items ADD COLUMN state INTEGER NOT NULL DEFAULT 0 CHECK (state IN (0, 1, 2));
            UPDATE items SET state = (SELECT CASE WHEN watched = 1 THEN 2 WHEN progress_seconds > 0 THEN 1 ELSE 0 END
                                      FROM watch_state WHERE item = items.id)
            WHERE id IN (SELECT item FROM watch_state);
            CREATE INDEX items_state_published ON items (state, published, channel_id);
            -- With the channel in the date indexes, a platform filter skips other channels'
            -- items without reading their (wide) rows.
            DROP INDEX items_newest;
            CREATE INDEX items_newest ON items (published, discovered_at, channel_id);
            -- With the state in the channel index, per-channel unwatched counts read only the index.
            DROP INDEX items_channel_published;
            CREATE INDEX items_channel_published ON items (channel_id, published, discovered_at, state);
            DROP INDEX items_short;
            CREATE INDEX items_short ON items (published, discovered_at, channel_id)
                WHERE duration <= 180 OR is_short = 1;

            CREATE TRIGGER watch_state_inserted AFTER INSERT ON watch_state BEGIN
                UPDATE items SET state = \(state) WHERE id = NEW.item;
            END;
            CREATE TRIGGER watch_state_updated AFTER UPDATE ON watch_state BEGIN
                UPDATE items SET state = 0 WHERE id = OLD.item AND OLD.item <> NEW.item;
                UPDATE items SET state = \(state) WHERE id = NEW.item;
            END;
            CREATE TRIGGER watch_state_deleted AFTER DELETE ON watch_state BEGIN
                UPDATE items SET state = 0 WHERE id = OLD.item;
            END;
            """)
    }

    /// Ids are never handed out twice: `items` and `channels` become AUTOINCREMENT tables. A
    /// plain rowid key reuses the largest id after a delete, so after `channel remove` a new
    /// episode took a removed one's id, and with it everything keyed by that id outside the
    /// library (its download played in the new episode's place). Both tables are rebuilt
    /// (SQLite's documented procedure; every row keeps its id, so watch state, saved marks,
    /// collections, history links and cached chapters stay with their items). The sequence
    /// starts at the largest id kept; ids removed above it before this migration can come back
    /// once, which is why downloads made before it are matched with care (`DownloadName`).
    static func v7IDsNeverReused(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE channels_v7 (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                platform TEXT NOT NULL CHECK (platform IN ('youtube', 'rumble', 'podcast')),
                source_url TEXT NOT NULL CHECK (source_url <> ''),
                feed_url TEXT NOT NULL UNIQUE CHECK (feed_url <> ''),
                name TEXT NOT NULL,
                image TEXT,
                active INTEGER NOT NULL DEFAULT 1 CHECK (active IN (0, 1)),
                added_at INTEGER NOT NULL,
                last_synced INTEGER,
                last_error TEXT,
                consecutive_errors INTEGER NOT NULL DEFAULT 0 CHECK (consecutive_errors >= 0),
                next_poll INTEGER,
                etag TEXT,
                last_modified TEXT,
                body_hash TEXT,
                speed REAL NOT NULL DEFAULT 1.0 CHECK (\(speedCheck)),
                speed_set INTEGER NOT NULL DEFAULT 0 CHECK (speed_set IN (0, 1))
            ) STRICT;
            INSERT INTO channels_v7 SELECT id, platform, source_url, feed_url, name, image, active, added_at,
                last_synced, last_error, consecutive_errors, next_poll, etag, last_modified, body_hash, speed, speed_set
                FROM channels;
            DROP TABLE channels;
            ALTER TABLE channels_v7 RENAME TO channels;

            -- The watch-state triggers name items; SQLite re-checks them when a table is renamed,
            -- so they go while items is rebuilt and come back as v3 made them.
            DROP TRIGGER watch_state_inserted;
            DROP TRIGGER watch_state_updated;
            DROP TRIGGER watch_state_deleted;
            CREATE TABLE items_v7 (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                channel_id INTEGER NOT NULL REFERENCES channels(id) ON DELETE CASCADE,
                item_id TEXT NOT NULL CHECK (item_id <> ''),
                guid TEXT,
                title TEXT NOT NULL,
                url TEXT,
                published INTEGER,
                updated INTEGER,
                duration INTEGER CHECK (duration >= 0),
                enclosure_url TEXT,
                enclosure_type TEXT,
                enclosure_length INTEGER CHECK (enclosure_length >= 0),
                thumbnail TEXT,
                author TEXT,
                description TEXT,
                views INTEGER CHECK (views >= 0),
                is_short INTEGER NOT NULL DEFAULT 0 CHECK (is_short IN (0, 1)),
                episode INTEGER,
                season INTEGER,
                chapters_url TEXT,
                transcript_url TEXT,
                discovered_at INTEGER NOT NULL,
                state INTEGER NOT NULL DEFAULT 0 CHECK (state IN (0, 1, 2)),
                UNIQUE (channel_id, item_id)
            ) STRICT;
            INSERT INTO items_v7 SELECT id, channel_id, item_id, guid, title, url, published, updated, duration,
                enclosure_url, enclosure_type, enclosure_length, thumbnail, author, description, views, is_short,
                episode, season, chapters_url, transcript_url, discovered_at, state
                FROM items ORDER BY id;
            DROP TABLE items;
            ALTER TABLE items_v7 RENAME TO items;
            CREATE INDEX items_state_published ON items (state, published, channel_id);
            CREATE INDEX items_newest ON items (published, discovered_at, channel_id);
            CREATE INDEX items_channel_published ON items (channel_id, published, discovered_at, state);
            CREATE INDEX items_short ON items (published, discovered_at, channel_id)
                WHERE \(shortFormPredicate);
            """)
        try createWatchStateTriggers(db)
    }

    /// v3's triggers keeping `items.state` in step with `watch_state` (v7 re-creates them as they were).
    static func createWatchStateTriggers(_ db: Database) throws {
        let state = "CASE WHEN NEW.watched = 1 THEN 2 WHEN NEW.progress_seconds > 0 THEN 1 ELSE 0 END"
        try db.execute(sql: """
            CREATE TRIGGER watch_state_inserted AFTER INSERT ON watch_state BEGIN
                UPDATE items SET state = \(state) WHERE id = NEW.item;
            END;
            CREATE TRIGGER watch_state_updated AFTER UPDATE ON watch_state BEGIN
                UPDATE items SET state = 0 WHERE id = OLD.item AND OLD.item <> NEW.item;
                UPDATE items SET state = \(state) WHERE id = NEW.item;
            END;
            CREATE TRIGGER watch_state_deleted AFTER DELETE ON watch_state BEGIN
                UPDATE items SET state = 0 WHERE id = OLD.item;
            END;
            """)
    }

    /// Full-text search over item titles, show notes (the stored description) and channel
    /// names: an FTS5 index whose content is the `items_search_source` view (the text is not
    /// stored twice), folded by `unicode61 remove_diacritics 2`, with prefix indexes for 2- and
    /// 3-character prefixes (what people type first).
    ///
    /// New items are indexed lazily: tokenizing a ~1 KB show note per item made ingest about five
    /// times slower (bench/ingest), so the index trails `items` up to `search_state.indexed_upto`
    /// and the next search first catches it up (`SQLiteLibrary.catchUpSearchIndex`; ids only grow
    /// since v7, so everything above the mark is new). Triggers keep the indexed rows in step:
    /// an external-content index must be told the exact text it indexed to forget a row, so a
    /// changed title or note is forgotten and indexed again, a channel's items are forgotten
    /// *before* the channel goes (the item trigger then finds no channel and stays out of it), and
    /// a renamed channel's items are indexed again under the new name. Rows above the mark are not
    /// in the index, and the triggers leave them alone.
    static func v8Search(_ db: Database) throws {
        let channelName = { (row: String) in "(SELECT name FROM channels WHERE id = \(row).channel_id)" }
        let indexed = "(SELECT indexed_upto FROM search_state WHERE id = 1)"
        try db.execute(sql: """
            CREATE VIEW items_search_source AS
                SELECT i.id, i.title, i.description AS notes, c.name AS channel
                FROM items i JOIN channels c ON c.id = i.channel_id;
            CREATE VIRTUAL TABLE items_search USING fts5(
                title, notes, channel,
                content = 'items_search_source', content_rowid = 'id',
                tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3');
            INSERT INTO items_search (items_search, rank) VALUES ('rank', '\(searchRank)');
            INSERT INTO items_search (items_search) VALUES ('rebuild');
            CREATE TABLE search_state (
                id INTEGER PRIMARY KEY CHECK (id = 1),
                indexed_upto INTEGER NOT NULL CHECK (indexed_upto >= 0)
            ) STRICT;
            INSERT INTO search_state (id, indexed_upto) VALUES (1, coalesce((SELECT max(id) FROM items), 0));

            CREATE TRIGGER items_search_updated AFTER UPDATE OF title, description ON items
            WHEN (OLD.title IS NOT NEW.title OR OLD.description IS NOT NEW.description) AND OLD.id <= \(indexed) BEGIN
                INSERT INTO items_search (items_search, rowid, title, notes, channel)
                VALUES ('delete', OLD.id, OLD.title, OLD.description, \(channelName("OLD")));
                INSERT INTO items_search (rowid, title, notes, channel)
                VALUES (NEW.id, NEW.title, NEW.description, \(channelName("NEW")));
            END;
            CREATE TRIGGER items_search_deleted AFTER DELETE ON items
            WHEN OLD.id <= \(indexed) AND EXISTS (SELECT 1 FROM channels WHERE id = OLD.channel_id) BEGIN
                INSERT INTO items_search (items_search, rowid, title, notes, channel)
                VALUES ('delete', OLD.id, OLD.title, OLD.description, \(channelName("OLD")));
            END;
            CREATE TRIGGER channels_search_deleted BEFORE DELETE ON channels BEGIN
                INSERT INTO items_search (items_search, rowid, title, notes, channel)
                SELECT 'delete', id, title, description, OLD.name FROM items
                WHERE channel_id = OLD.id AND id <= \(indexed);
            END;
            CREATE TRIGGER channels_search_renamed AFTER UPDATE OF name ON channels
            WHEN OLD.name IS NOT NEW.name BEGIN
                INSERT INTO items_search (items_search, rowid, title, notes, channel)
                SELECT 'delete', id, title, description, OLD.name FROM items
                WHERE channel_id = NEW.id AND id <= \(indexed);
                INSERT INTO items_search (rowid, title, notes, channel)
                SELECT id, title, description, NEW.name FROM items
                WHERE channel_id = NEW.id AND id <= \(indexed);
            END;
            """)
    }

    /// The up-next queue and the player's remembered state move from the daemon's memory into
    /// the library, so they survive restarts. A queue entry is exactly one of a library item
    /// (which leaves the queue with its channel), a URL or a file. `player_state` is one row.
    static func v9UpNextAndPlayerState(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE up_next (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                position INTEGER NOT NULL CHECK (position >= 1),
                item INTEGER REFERENCES items(id) ON DELETE CASCADE,
                url TEXT CHECK (url <> ''),
                file TEXT CHECK (file <> ''),
                title TEXT NOT NULL,
                added_at INTEGER NOT NULL,
                CHECK ((item IS NOT NULL) + (url IS NOT NULL) + (file IS NOT NULL) = 1)
            ) STRICT;
            CREATE INDEX up_next_position ON up_next (position, id);
            CREATE INDEX up_next_item ON up_next (item);

            CREATE TABLE player_state (
                id INTEGER PRIMARY KEY CHECK (id = 1),
                volume REAL CHECK (\(volumeCheck)),
                last_item INTEGER REFERENCES items(id) ON DELETE SET NULL,
                last_url TEXT CHECK (last_url <> ''),
                last_file TEXT CHECK (last_file <> ''),
                last_title TEXT,
                last_position REAL NOT NULL DEFAULT 0 CHECK (last_position >= 0),
                updated_at INTEGER NOT NULL,
                CHECK ((last_item IS NOT NULL) + (last_url IS NOT NULL) + (last_file IS NOT NULL) <= 1)
            ) STRICT;
            """)
    }

    /// What the parser read and the library used to drop (issue 17): a channel's current parse
    /// warnings (replaced by every poll that parsed a new body; NULL when it was clean), its feed's
    /// self URL, next page and Podcasting 2.0 funding; an item's `itunes:explicit`, episode type,
    /// live status (`podcast:liveItem`, Rumble), persons and funding. Lists are JSON arrays
    /// (`[str]`, `[{"name", "role", "href", "image"}]`, `[{"url", "title"}]`), NULL when empty.
    /// Existing rows get them when their feed's body next changes.
    /// An item's show notes as sanitized HTML, NULL when they hold no markup worth keeping
    /// (v21 renamed the column: it now holds the feed's markup, sanitized when shown). Items get
    /// it when their feed's body next changes (the ingest rewrites a row whose columns differ),
    /// as v10's columns did.
    static func v20NotesHTML(_ db: Database) throws {
        try db.execute(sql: "ALTER TABLE items ADD COLUMN notes_html TEXT CHECK (notes_html <> '')")
    }

    /// The show notes are kept as the feed's markup (`Item.notesMarkup`, unsanitized) and
    /// sanitized when one item's notes are shown: sanitizing every item at parse time cost the
    /// parser a third more CPU (docs/benchmarks.md). Sanitized notes stored by v20 stay until
    /// their feed's body next changes: sanitized again when shown, they stay safe.
    static func v21NotesMarkup(_ db: Database) throws {
        try db.execute(sql: "ALTER TABLE items RENAME COLUMN notes_html TO notes_markup")
    }

    /// Single sign-on (issue 29): a user's accounts at OpenID providers, each (issuer, subject)
    /// linked to one user at most; they go with the user. The email the provider said is kept
    /// for an admin's eyes only.
    static func v24UserIdentities(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE user_identities (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                issuer TEXT NOT NULL CHECK (issuer <> ''),
                subject TEXT NOT NULL CHECK (subject <> ''),
                email TEXT CHECK (email <> ''),
                created_at INTEGER NOT NULL,
                last_used_at INTEGER,
                UNIQUE (issuer, subject)
            ) STRICT;
            CREATE INDEX user_identities_user ON user_identities (user_id);
            """)
    }

    /// How many of a subscription's items its user has watched (`subscriptions.watched`), and
    /// of their whole feed (`users.feed_watched`), kept by triggers as v15's item counts are: an
    /// unwatched or watched page's `total` is one row or a sum over the user's subscriptions,
    /// not a count of the user's watched rows through the items (16 ms a page on SQLite, 35 ms
    /// on PostgreSQL, for a user who has watched 33,000 of 100,000 items). A watch row counts
    /// while it is watched and its item's channel is followed; a new subscription counts the
    /// user's watched rows of its channel once. An item that goes takes its watch rows with it
    /// (the foreign key's cascade, which runs once the item is gone, so the watch rows' trigger
    /// finds no channel and counts nothing): `items_watched_uncounted` counts them down first.
    static func v26FeedWatchedCounts(_ db: Database) throws {
        try db.execute(sql: """
            ALTER TABLE subscriptions ADD COLUMN watched INTEGER NOT NULL DEFAULT 0 CHECK (watched >= 0);
            UPDATE subscriptions SET watched = (SELECT count(*) FROM watch_state w JOIN items i ON i.id = w.item
                WHERE w.user_id = subscriptions.user_id AND w.watched = 1 AND i.channel_id = subscriptions.channel_id);
            ALTER TABLE users ADD COLUMN feed_watched INTEGER NOT NULL DEFAULT 0 CHECK (feed_watched >= 0);
            UPDATE users SET feed_watched = (SELECT coalesce(sum(watched), 0) FROM subscriptions WHERE user_id = users.id);
            -- v15's subscription triggers keep both counts: one write of the user's row per event.
            -- A new subscription's watched rows are counted by a trigger of their own: SQLite fires
            -- a table's triggers newest first, and a remade `subscriptions_counted` would log the
            -- sync of its first count before the subscription's `added` (v19's change log).
            DROP TRIGGER subscriptions_items_moved;
            DROP TRIGGER subscriptions_uncounted;
            CREATE TRIGGER subscriptions_items_moved AFTER UPDATE OF items, watched ON subscriptions BEGIN
                UPDATE users SET feed_items = feed_items - OLD.items + NEW.items, feed_watched = feed_watched - OLD.watched + NEW.watched
                    WHERE id = NEW.user_id;
            END;
            CREATE TRIGGER subscriptions_uncounted AFTER DELETE ON subscriptions BEGIN
                UPDATE users SET feed_items = feed_items - OLD.items, feed_watched = feed_watched - OLD.watched WHERE id = OLD.user_id;
            END;
            CREATE TRIGGER subscriptions_watched_counted AFTER INSERT ON subscriptions BEGIN
                UPDATE subscriptions SET watched = (SELECT count(*) FROM watch_state w JOIN items i ON i.id = w.item
                        WHERE w.user_id = NEW.user_id AND w.watched = 1 AND i.channel_id = NEW.channel_id)
                    WHERE user_id = NEW.user_id AND channel_id = NEW.channel_id;
            END;
            CREATE TRIGGER watch_state_watched_counted AFTER INSERT ON watch_state WHEN NEW.watched = 1 BEGIN
                UPDATE subscriptions SET watched = watched + 1
                    WHERE user_id = NEW.user_id AND channel_id = (SELECT channel_id FROM items WHERE id = NEW.item);
            END;
            CREATE TRIGGER watch_state_watched_moved AFTER UPDATE OF watched, user_id, item ON watch_state
                WHEN OLD.watched <> NEW.watched OR OLD.user_id <> NEW.user_id OR OLD.item <> NEW.item BEGIN
                UPDATE subscriptions SET watched = watched - 1
                    WHERE OLD.watched = 1 AND user_id = OLD.user_id AND channel_id = (SELECT channel_id FROM items WHERE id = OLD.item);
                UPDATE subscriptions SET watched = watched + 1
                    WHERE NEW.watched = 1 AND user_id = NEW.user_id AND channel_id = (SELECT channel_id FROM items WHERE id = NEW.item);
            END;
            CREATE TRIGGER watch_state_watched_uncounted AFTER DELETE ON watch_state WHEN OLD.watched = 1 BEGIN
                UPDATE subscriptions SET watched = watched - 1
                    WHERE user_id = OLD.user_id AND channel_id = (SELECT channel_id FROM items WHERE id = OLD.item);
            END;
            CREATE TRIGGER items_watched_uncounted BEFORE DELETE ON items BEGIN
                UPDATE subscriptions SET watched = watched - 1
                    WHERE channel_id = OLD.channel_id
                      AND user_id IN (SELECT user_id FROM watch_state WHERE item = OLD.id AND watched = 1);
            END;
            """)
    }

    /// Single sign-ons under way and re-authentications (`SignInStore`), in the library so every
    /// replica of a server sees them. A sign-in goes back to the web app (`next_path` and
    /// `browser_hash`; with `session_id` it re-authenticates that session) or to a phone app
    /// (`mobile_redirect`), never both.
    static func v25SignIns(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE sign_ins (
                state_hash TEXT PRIMARY KEY CHECK (state_hash <> ''),
                nonce TEXT NOT NULL CHECK (nonce <> ''),
                verifier TEXT NOT NULL CHECK (verifier <> ''),
                callback TEXT NOT NULL CHECK (callback <> ''),
                next_path TEXT CHECK (next_path <> ''),
                browser_hash TEXT CHECK (browser_hash <> ''),
                session_id INTEGER REFERENCES sessions(id) ON DELETE CASCADE,
                mobile_redirect TEXT CHECK (mobile_redirect <> ''),
                started_at INTEGER NOT NULL,
                CHECK ((next_path IS NOT NULL AND browser_hash IS NOT NULL AND mobile_redirect IS NULL)
                       OR (next_path IS NULL AND browser_hash IS NULL AND session_id IS NULL AND mobile_redirect IS NOT NULL))
            ) STRICT;
            CREATE INDEX sign_ins_started ON sign_ins (started_at);
            CREATE INDEX sign_ins_session ON sign_ins (session_id);

            CREATE TABLE session_reauthentications (
                session_id INTEGER PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
                authenticated_at INTEGER NOT NULL
            ) STRICT;
            """)
    }

    static func v10FeedDetails(_ db: Database) throws {
        try db.execute(sql: """
            ALTER TABLE channels ADD COLUMN warnings TEXT CHECK (warnings IS NULL OR json_valid(warnings) AND json_type(warnings) = 'array');
            ALTER TABLE channels ADD COLUMN self_url TEXT CHECK (self_url <> '');
            ALTER TABLE channels ADD COLUMN next_page TEXT CHECK (next_page <> '');
            ALTER TABLE channels ADD COLUMN funding TEXT CHECK (funding IS NULL OR json_valid(funding) AND json_type(funding) = 'array');
            ALTER TABLE items ADD COLUMN explicit INTEGER CHECK (explicit IN (0, 1));
            ALTER TABLE items ADD COLUMN episode_type TEXT CHECK (episode_type <> '');
            ALTER TABLE items ADD COLUMN live_status TEXT CHECK (live_status <> '');
            ALTER TABLE items ADD COLUMN persons TEXT CHECK (persons IS NULL OR json_valid(persons) AND json_type(persons) = 'array');
            ALTER TABLE items ADD COLUMN funding TEXT CHECK (funding IS NULL OR json_valid(funding) AND json_type(funding) = 'array');
            """)
    }

    /// The owner's id as per-user columns default to it (`LibraryUsers`): a row written without a
    /// user (an older feedctl's SQL, a test's) is the owner's.
    static let ownerID = LibraryUsers.ownerID

    /// Several users (issue 15). Channels and items stay shared; what was one person's becomes
    /// per user: `subscriptions` (who follows which channel, with the per-user `active` flag and
    /// remembered speed that were columns of `channels`), and `user_id` on watch state, saved
    /// items, collections (names unique per user), history, the up-next queue and the player's
    /// state. Everything already there becomes the owner's (user 1, named after `$USER`, no
    /// password, admin), and every channel gets the owner's subscription, so nothing is lost.
    /// `items.state` (v3: catch-up's index) now mirrors the owner's watch state only; other users'
    /// catch-up reads their watch state. `sessions` keeps login sessions by token hash, and
    /// `channels.claimed_until`/`claimed_by` let one poller at a time claim a channel (`PollLease`).
    static func v11Users(_ db: Database) throws {
        let environment = ProcessInfo.processInfo.environment
        let ownerName = environment["USER"].flatMap(LibraryUsers.validName) ?? LibraryUsers.fallbackOwnerName
        let now = Int64(Date().timeIntervalSince1970)
        let owner = "user_id INTEGER NOT NULL DEFAULT \(ownerID) REFERENCES users(id) ON DELETE CASCADE"
        let state = "CASE WHEN NEW.watched = 1 THEN 2 WHEN NEW.progress_seconds > 0 THEN 1 ELSE 0 END"
        try db.execute(sql: """
            CREATE TABLE users (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                name TEXT NOT NULL UNIQUE CHECK (name <> ''),
                password_hash TEXT CHECK (password_hash <> ''),
                is_admin INTEGER NOT NULL DEFAULT 0 CHECK (is_admin IN (0, 1)),
                created_at INTEGER NOT NULL
            ) STRICT;
            INSERT INTO users (id, name, password_hash, is_admin, created_at) VALUES (\(ownerID), ?, NULL, 1, ?);

            CREATE TABLE sessions (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                token_hash TEXT NOT NULL UNIQUE CHECK (token_hash <> ''),
                device_name TEXT,
                created_at INTEGER NOT NULL,
                expires_at INTEGER NOT NULL,
                last_used_at INTEGER
            ) STRICT;
            CREATE INDEX sessions_user ON sessions (user_id);

            CREATE TABLE subscriptions (
                \(owner),
                channel_id INTEGER NOT NULL REFERENCES channels(id) ON DELETE CASCADE,
                active INTEGER NOT NULL DEFAULT 1 CHECK (active IN (0, 1)),
                speed REAL NOT NULL DEFAULT 1.0 CHECK (\(speedCheck)),
                speed_set INTEGER NOT NULL DEFAULT 0 CHECK (speed_set IN (0, 1)),
                added_at INTEGER NOT NULL,
                PRIMARY KEY (user_id, channel_id)
            ) STRICT, WITHOUT ROWID;
            -- Who follows a channel (due channels, removing the last follower's channel).
            CREATE INDEX subscriptions_channel ON subscriptions (channel_id, active);
            INSERT INTO subscriptions (user_id, channel_id, active, speed, speed_set, added_at)
                SELECT \(ownerID), id, active, speed, speed_set, added_at FROM channels;
            ALTER TABLE channels DROP COLUMN active;
            ALTER TABLE channels DROP COLUMN speed;
            ALTER TABLE channels DROP COLUMN speed_set;
            ALTER TABLE channels ADD COLUMN claimed_until INTEGER;
            ALTER TABLE channels ADD COLUMN claimed_by TEXT;

            DROP TRIGGER watch_state_inserted;
            DROP TRIGGER watch_state_updated;
            DROP TRIGGER watch_state_deleted;
            CREATE TABLE watch_state_v11 (
                \(owner),
                item INTEGER NOT NULL REFERENCES items(id) ON DELETE CASCADE,
                watched INTEGER NOT NULL DEFAULT 0 CHECK (watched IN (0, 1)),
                progress_seconds INTEGER NOT NULL DEFAULT 0 CHECK (progress_seconds >= 0),
                watched_at INTEGER,
                updated_at INTEGER NOT NULL,
                CHECK (watched = 1 OR watched_at IS NULL),
                PRIMARY KEY (user_id, item)
            ) STRICT, WITHOUT ROWID;
            -- WITHOUT ROWID: the feed reads one user's row per item by its key, one B-tree search
            -- (with a rowid the key is an index leading to the row: two; bench/modes' newest p50
            -- was ~1.5x the single-user schema's).
            INSERT INTO watch_state_v11 (user_id, item, watched, progress_seconds, watched_at, updated_at)
                SELECT \(ownerID), item, watched, progress_seconds, watched_at, updated_at FROM watch_state;
            DROP TABLE watch_state;
            ALTER TABLE watch_state_v11 RENAME TO watch_state;
            CREATE INDEX watch_state_item ON watch_state (item);
            -- catch-up's resume list: a user's in-progress items, most recently played first.
            CREATE INDEX watch_state_in_progress ON watch_state (user_id, updated_at)
                WHERE watched = 0 AND progress_seconds > 0;
            -- items.state mirrors the owner's watch state only (catch-up's index, v3).
            CREATE TRIGGER watch_state_inserted AFTER INSERT ON watch_state WHEN NEW.user_id = \(ownerID) BEGIN
                UPDATE items SET state = \(state) WHERE id = NEW.item;
            END;
            CREATE TRIGGER watch_state_updated AFTER UPDATE ON watch_state BEGIN
                UPDATE items SET state = 0
                    WHERE id = OLD.item AND OLD.user_id = \(ownerID) AND (OLD.item <> NEW.item OR NEW.user_id <> \(ownerID));
                UPDATE items SET state = \(state) WHERE id = NEW.item AND NEW.user_id = \(ownerID);
            END;
            CREATE TRIGGER watch_state_deleted AFTER DELETE ON watch_state WHEN OLD.user_id = \(ownerID) BEGIN
                UPDATE items SET state = 0 WHERE id = OLD.item;
            END;

            CREATE TABLE saved_items_v11 (
                \(owner),
                item INTEGER NOT NULL REFERENCES items(id) ON DELETE CASCADE,
                saved_at INTEGER NOT NULL,
                PRIMARY KEY (user_id, item)
            ) STRICT;
            INSERT INTO saved_items_v11 (user_id, item, saved_at)
                SELECT \(ownerID), item, saved_at FROM saved_items ORDER BY rowid;
            DROP TABLE saved_items;
            ALTER TABLE saved_items_v11 RENAME TO saved_items;
            CREATE INDEX saved_items_item ON saved_items (item);

            CREATE TABLE collections_v11 (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                \(owner),
                name TEXT NOT NULL CHECK (name <> ''),
                created_at INTEGER NOT NULL,
                UNIQUE (user_id, name)
            ) STRICT;
            INSERT INTO collections_v11 (id, user_id, name, created_at) SELECT id, \(ownerID), name, created_at FROM collections;
            DROP TABLE collections;
            ALTER TABLE collections_v11 RENAME TO collections;

            CREATE TABLE play_history_v11 (
                id INTEGER PRIMARY KEY,
                \(owner),
                item INTEGER REFERENCES items(id) ON DELETE SET NULL,
                title TEXT NOT NULL,
                channel_name TEXT NOT NULL,
                url TEXT,
                position_seconds INTEGER CHECK (position_seconds >= 0),
                played_at INTEGER NOT NULL
            ) STRICT;
            INSERT INTO play_history_v11 (id, user_id, item, title, channel_name, url, position_seconds, played_at)
                SELECT id, \(ownerID), item, title, channel_name, url, position_seconds, played_at FROM play_history;
            DROP TABLE play_history;
            ALTER TABLE play_history_v11 RENAME TO play_history;
            CREATE INDEX play_history_item ON play_history (item);
            CREATE INDEX play_history_played ON play_history (user_id, played_at);

            CREATE TABLE up_next_v11 (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                \(owner),
                position INTEGER NOT NULL CHECK (position >= 1),
                item INTEGER REFERENCES items(id) ON DELETE CASCADE,
                url TEXT CHECK (url <> ''),
                file TEXT CHECK (file <> ''),
                title TEXT NOT NULL,
                added_at INTEGER NOT NULL,
                CHECK ((item IS NOT NULL) + (url IS NOT NULL) + (file IS NOT NULL) = 1)
            ) STRICT;
            INSERT INTO up_next_v11 (id, user_id, position, item, url, file, title, added_at)
                SELECT id, \(ownerID), position, item, url, file, title, added_at FROM up_next;
            DROP TABLE up_next;
            ALTER TABLE up_next_v11 RENAME TO up_next;
            CREATE INDEX up_next_position ON up_next (user_id, position, id);
            CREATE INDEX up_next_item ON up_next (item);

            CREATE TABLE player_state_v11 (
                user_id INTEGER PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
                volume REAL CHECK (\(volumeCheck)),
                last_item INTEGER REFERENCES items(id) ON DELETE SET NULL,
                last_url TEXT CHECK (last_url <> ''),
                last_file TEXT CHECK (last_file <> ''),
                last_title TEXT,
                last_position REAL NOT NULL DEFAULT 0 CHECK (last_position >= 0),
                updated_at INTEGER NOT NULL,
                CHECK ((last_item IS NOT NULL) + (last_url IS NOT NULL) + (last_file IS NOT NULL) <= 1)
            ) STRICT;
            INSERT INTO player_state_v11 (user_id, volume, last_item, last_url, last_file, last_title, last_position, updated_at)
                SELECT \(ownerID), volume, last_item, last_url, last_file, last_title, last_position, updated_at FROM player_state;
            DROP TABLE player_state;
            ALTER TABLE player_state_v11 RENAME TO player_state;
            """, arguments: [ownerName, now])
    }

    /// The search index gains a prefix index for one character (`prefix = '1 2 3'`): a search
    /// ending in a one-character word (`channel 42 item 3`) read every word that character starts
    /// as eleven phrases (`"3" OR "30"* … "39"*`), each seeked on every row FTS5's AND visited;
    /// with the prefix index it is one lazy phrase (bench/search: that query's p50 14 → ~5 ms).
    /// The index grows by about a third (53 → 70 MB on the 1M-item bench library). FTS5 cannot
    /// change a table's options, so the index is made again from the same source, as v8 made it,
    /// up to the same mark (`search_state.indexed_upto`): rows above it stay for the next search
    /// to catch up, and v8's triggers, which name the table, keep working on the new one.
    static func v12SearchOneCharacterPrefixes(_ db: Database) throws {
        try db.execute(sql: """
            DROP TABLE items_search;
            CREATE VIRTUAL TABLE items_search USING fts5(
                title, notes, channel,
                content = 'items_search_source', content_rowid = 'id',
                tokenize = 'unicode61 remove_diacritics 2', prefix = '1 2 3');
            INSERT INTO items_search (items_search, rank) VALUES ('rank', '\(searchRank)');
            INSERT INTO items_search (rowid, title, notes, channel)
                SELECT id, title, notes, channel FROM items_search_source
                WHERE id <= (SELECT indexed_upto FROM search_state WHERE id = 1);
            """)
    }

    /// Saved videos and collections as the WebSearch API has them (issue 15). A saved video gets
    /// its own id (the API's `/saved-videos/{id}`), notes and an update time, and may be a page
    /// that is not in the library (`item` NULL: saved by URL, with what its page or the client
    /// said about it, and its own watch state; a library item's watch state stays in
    /// `watch_state`). Collections get a description, a cover, a sort order and an update time;
    /// their items keep their positions. Every saved item and collection stays, with its times,
    /// ids and order.
    static func v14SavedAndCollections(_ db: Database) throws {
        let owner = "user_id INTEGER NOT NULL DEFAULT \(ownerID) REFERENCES users(id) ON DELETE CASCADE"
        try db.execute(sql: """
            CREATE TABLE saved_items_v12 (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                \(owner),
                item INTEGER REFERENCES items(id) ON DELETE CASCADE,
                platform TEXT CHECK (platform <> ''),
                video_id TEXT CHECK (video_id <> ''),
                video_url TEXT CHECK (video_url <> ''),
                title TEXT,
                description TEXT,
                thumbnail_url TEXT,
                duration_seconds INTEGER CHECK (duration_seconds >= 0),
                view_count INTEGER CHECK (view_count >= 0),
                upload_date INTEGER,
                channel_name TEXT,
                channel_ref TEXT,
                channel_url TEXT,
                watched INTEGER NOT NULL DEFAULT 0 CHECK (watched IN (0, 1)),
                watched_at INTEGER,
                progress_seconds INTEGER NOT NULL DEFAULT 0 CHECK (progress_seconds >= 0),
                notes TEXT,
                saved_at INTEGER NOT NULL,
                updated_at INTEGER NOT NULL,
                -- A library item, or a page saved by URL with what names it.
                CHECK (item IS NOT NULL OR (platform IS NOT NULL AND video_id IS NOT NULL AND video_url IS NOT NULL AND title IS NOT NULL)),
                UNIQUE (user_id, item)
            ) STRICT;
            INSERT INTO saved_items_v12 (user_id, item, saved_at, updated_at)
                SELECT user_id, item, saved_at, saved_at FROM saved_items ORDER BY saved_at, rowid;
            DROP TABLE saved_items;
            ALTER TABLE saved_items_v12 RENAME TO saved_items;
            CREATE INDEX saved_items_item ON saved_items (item);
            -- Saving a page twice finds the first (the backend's rule: one per platform and video id).
            CREATE UNIQUE INDEX saved_items_page ON saved_items (user_id, platform, video_id) WHERE item IS NULL;
            CREATE INDEX saved_items_saved ON saved_items (user_id, saved_at);

            ALTER TABLE collections ADD COLUMN description TEXT;
            ALTER TABLE collections ADD COLUMN cover_url TEXT;
            ALTER TABLE collections ADD COLUMN sort_order INTEGER NOT NULL DEFAULT 0 CHECK (sort_order >= 0);
            ALTER TABLE collections ADD COLUMN updated_at INTEGER;
            UPDATE collections SET updated_at = created_at;
            """)
    }

    /// How many items each subscription's channel has, and each user's feed in all, kept by
    /// triggers, so a feed page's `total` is one row (the whole feed) or a sum over the user's
    /// subscriptions (a platform or channels: one range of the primary key) instead of a count
    /// through the per-user joins (11 ms per request on the 35k-item library, the whole cost of
    /// `GET /api/feed`). Every path that adds or removes an item (ingest's upsert, a channel's
    /// cascade) passes through the item triggers, which move the subscriptions' counts, whose
    /// trigger moves their users' totals; a new subscription counts its channel's items once
    /// (`items_channel_published`). When a channel goes, its subscriptions go with it, whichever
    /// the cascade deletes first: either way the user's total loses the channel's items once.
    static func v15FeedItemCounts(_ db: Database) throws {
        try db.execute(sql: """
            ALTER TABLE subscriptions ADD COLUMN items INTEGER NOT NULL DEFAULT 0 CHECK (items >= 0);
            UPDATE subscriptions SET items = (SELECT count(*) FROM items WHERE channel_id = subscriptions.channel_id);
            ALTER TABLE users ADD COLUMN feed_items INTEGER NOT NULL DEFAULT 0 CHECK (feed_items >= 0);
            UPDATE users SET feed_items = (SELECT coalesce(sum(items), 0) FROM subscriptions WHERE user_id = users.id);
            CREATE TRIGGER subscriptions_items_moved AFTER UPDATE OF items ON subscriptions BEGIN
                UPDATE users SET feed_items = feed_items - OLD.items + NEW.items WHERE id = NEW.user_id;
            END;
            CREATE TRIGGER subscriptions_uncounted AFTER DELETE ON subscriptions BEGIN
                UPDATE users SET feed_items = feed_items - OLD.items WHERE id = OLD.user_id;
            END;
            CREATE TRIGGER subscriptions_counted AFTER INSERT ON subscriptions BEGIN
                UPDATE subscriptions SET items = (SELECT count(*) FROM items WHERE channel_id = NEW.channel_id)
                    WHERE user_id = NEW.user_id AND channel_id = NEW.channel_id;
            END;
            CREATE TRIGGER items_counted AFTER INSERT ON items BEGIN
                UPDATE subscriptions SET items = items + 1 WHERE channel_id = NEW.channel_id;
            END;
            CREATE TRIGGER items_uncounted AFTER DELETE ON items BEGIN
                UPDATE subscriptions SET items = items - 1 WHERE channel_id = OLD.channel_id;
            END;
            CREATE TRIGGER items_moved AFTER UPDATE OF channel_id ON items WHEN OLD.channel_id <> NEW.channel_id BEGIN
                UPDATE subscriptions SET items = items - 1 WHERE channel_id = OLD.channel_id;
                UPDATE subscriptions SET items = items + 1 WHERE channel_id = NEW.channel_id;
            END;
            """)
    }

    /// v15's per-item triggers halved how fast items go in (bench/ingest: a subscription row and
    /// a user row written for every item inserted; 94k → 47k items/s copying the corpus). The
    /// ingest now sets each subscription's count once per changed feed, to the count it reads
    /// anyway (`SQLiteLibrary.upsert`); the triggers that remain fire per subscription, not per
    /// item: a user's total follows their subscriptions' counts, and items that go (a channel's
    /// cascade) still count down.
    static func v17FeedCountsPerFeed(_ db: Database) throws {
        try db.execute(sql: """
            DROP TRIGGER items_counted;
            DROP TRIGGER items_moved;
            """)
    }
}
