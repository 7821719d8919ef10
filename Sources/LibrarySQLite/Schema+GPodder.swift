import GRDB

extension Schema {
    /// The sync clock's next reading, as SQL: Unix seconds, but always past the last one handed
    /// out, so two changes in one second get two stamps and a `since` never hides a change.
    static let syncClockTick = "UPDATE sync_clock SET last = max(CAST(strftime('%s', 'now') AS INTEGER), last + 1)"

    /// gpodder.net sync (issue 15). `sync_clock` is the one monotonic clock every pullable change
    /// is stamped from (`since` reads it). `sync_devices` names a user's devices.
    /// `sync_subscription_changes` keeps each user's latest change per feed URL (subscribed or
    /// not, and when), kept in step by triggers on `subscriptions` and on a channel's feed URL
    /// moving, so subscriptions made anywhere (the CLI, the WebSearch API, a phone) are pulled
    /// alike; it starts with every existing subscription. `episode_actions` keeps what phones
    /// upload, matched to an item when the library has it (NULL when not, or once removed);
    /// `sync_episode_changes` stamps each item whose watch state changed (one row per user and
    /// item, not a log: the daemon saves progress every few seconds), from which feedctl's own
    /// progress is given back as play actions; it starts with every existing watch state.
    static func v13GPodder(_ db: Database) throws {
        let stamp = "(SELECT last FROM sync_clock)"
        try db.execute(sql: """
            CREATE TABLE sync_clock (
                id INTEGER PRIMARY KEY CHECK (id = 1),
                last INTEGER NOT NULL
            ) STRICT;
            INSERT INTO sync_clock (id, last) VALUES (1, CAST(strftime('%s', 'now') AS INTEGER));

            CREATE TABLE sync_devices (
                user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                device TEXT NOT NULL CHECK (device <> ''),
                caption TEXT NOT NULL DEFAULT '',
                type TEXT NOT NULL DEFAULT 'other' CHECK (type IN ('desktop', 'laptop', 'mobile', 'server', 'other')),
                created_at INTEGER NOT NULL,
                updated_at INTEGER NOT NULL,
                PRIMARY KEY (user_id, device)
            ) STRICT, WITHOUT ROWID;

            CREATE TABLE sync_subscription_changes (
                user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                url TEXT NOT NULL CHECK (url <> ''),
                subscribed INTEGER NOT NULL CHECK (subscribed IN (0, 1)),
                changed INTEGER NOT NULL,
                PRIMARY KEY (user_id, url)
            ) STRICT, WITHOUT ROWID;
            CREATE INDEX sync_subscription_changes_since ON sync_subscription_changes (user_id, changed);
            INSERT INTO sync_subscription_changes (user_id, url, subscribed, changed)
                SELECT s.user_id, c.feed_url, 1, \(stamp) FROM subscriptions s JOIN channels c ON c.id = s.channel_id;

            CREATE TRIGGER subscriptions_sync_added AFTER INSERT ON subscriptions BEGIN
                \(syncClockTick);
                INSERT INTO sync_subscription_changes (user_id, url, subscribed, changed)
                    SELECT NEW.user_id, feed_url, 1, \(stamp) FROM channels WHERE id = NEW.channel_id
                    ON CONFLICT (user_id, url) DO UPDATE SET subscribed = 1, changed = excluded.changed;
            END;
            -- Not when the user is being removed (their rows go with them).
            CREATE TRIGGER subscriptions_sync_removed AFTER DELETE ON subscriptions
            WHEN EXISTS (SELECT 1 FROM users WHERE id = OLD.user_id) BEGIN
                \(syncClockTick);
                INSERT INTO sync_subscription_changes (user_id, url, subscribed, changed)
                    SELECT OLD.user_id, feed_url, 0, \(stamp) FROM channels WHERE id = OLD.channel_id
                    ON CONFLICT (user_id, url) DO UPDATE SET subscribed = 0, changed = excluded.changed;
            END;
            -- A permanent redirect moved the feed: its followers drop the old URL and take the new.
            CREATE TRIGGER channels_sync_moved AFTER UPDATE OF feed_url ON channels WHEN OLD.feed_url <> NEW.feed_url BEGIN
                \(syncClockTick);
                INSERT INTO sync_subscription_changes (user_id, url, subscribed, changed)
                    SELECT user_id, OLD.feed_url, 0, \(stamp) FROM subscriptions WHERE channel_id = NEW.id
                    ON CONFLICT (user_id, url) DO UPDATE SET subscribed = 0, changed = excluded.changed;
                INSERT INTO sync_subscription_changes (user_id, url, subscribed, changed)
                    SELECT user_id, NEW.feed_url, 1, \(stamp) FROM subscriptions WHERE channel_id = NEW.id
                    ON CONFLICT (user_id, url) DO UPDATE SET subscribed = 1, changed = excluded.changed;
            END;

            CREATE TABLE episode_actions (
                id INTEGER PRIMARY KEY,
                user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                uploaded INTEGER NOT NULL,
                podcast TEXT NOT NULL CHECK (podcast <> ''),
                episode TEXT NOT NULL CHECK (episode <> ''),
                guid TEXT CHECK (guid <> ''),
                action TEXT NOT NULL CHECK (action IN ('download', 'play', 'delete', 'new', 'flattr')),
                device TEXT CHECK (device <> ''),
                timestamp INTEGER NOT NULL,
                started INTEGER,
                position INTEGER CHECK (position >= -1),
                total INTEGER,
                item INTEGER REFERENCES items(id) ON DELETE SET NULL,
                CHECK (action = 'play' OR (started IS NULL AND position IS NULL AND total IS NULL))
            ) STRICT;
            CREATE INDEX episode_actions_since ON episode_actions (user_id, uploaded);
            CREATE INDEX episode_actions_item ON episode_actions (item);

            CREATE TABLE sync_episode_changes (
                user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                item INTEGER NOT NULL REFERENCES items(id) ON DELETE CASCADE,
                changed INTEGER NOT NULL,
                PRIMARY KEY (user_id, item)
            ) STRICT, WITHOUT ROWID;
            CREATE INDEX sync_episode_changes_since ON sync_episode_changes (user_id, changed);
            CREATE INDEX sync_episode_changes_item ON sync_episode_changes (item);
            INSERT INTO sync_episode_changes (user_id, item, changed)
                SELECT user_id, item, \(stamp) FROM watch_state WHERE watched = 1 OR progress_seconds > 0;

            CREATE TRIGGER watch_state_sync_inserted AFTER INSERT ON watch_state BEGIN
                \(syncClockTick);
                INSERT INTO sync_episode_changes (user_id, item, changed) VALUES (NEW.user_id, NEW.item, \(stamp))
                    ON CONFLICT (user_id, item) DO UPDATE SET changed = excluded.changed;
            END;
            CREATE TRIGGER watch_state_sync_updated AFTER UPDATE OF watched, progress_seconds ON watch_state
            WHEN OLD.watched <> NEW.watched OR OLD.progress_seconds <> NEW.progress_seconds BEGIN
                \(syncClockTick);
                INSERT INTO sync_episode_changes (user_id, item, changed) VALUES (NEW.user_id, NEW.item, \(stamp))
                    ON CONFLICT (user_id, item) DO UPDATE SET changed = excluded.changed;
            END;
            """)
    }

    /// The `play` and `new` actions a phone uploaded before their episode was in the library
    /// (a podcast subscribed on the phone, not yet polled here), found by their podcast URL when
    /// that podcast's items arrive (`SQLiteLibrary.applyPendingActions`).
    static func v16PendingEpisodeActions(_ db: Database) throws {
        try db.execute(sql: """
            CREATE INDEX episode_actions_pending ON episode_actions (podcast) WHERE item IS NULL AND action IN ('play', 'new');
            """)
    }
}
