/// The PostgreSQL library's schema as named, forward-only migrations, each run in one
/// transaction through the simple query protocol (several statements and PL/pgSQL `$$` bodies in
/// one string). Never edit a shipped migration: add a new one. The schema, not Swift code,
/// enforces integrity, as in the SQLite library.
///
/// `v1-initial` is the SQLite schema's final state (`v21-notes-markup`) translated at once: a
/// PostgreSQL library starts empty (or from `feedctl db copy`). Tables, columns, names, CHECKs,
/// foreign keys and indexes are SQLite's; every SQLite INTEGER is a BIGINT (flags stay 0/1 with
/// their CHECK, so queries read the same), REAL is DOUBLE PRECISION, and the counters, the sync
/// clock, the change log and the search index are kept by triggers with the SQLite triggers'
/// names and meaning. docs/postgresql.md ("Schema") lists what differs and why.
///
/// Values spelled here from the shared rules (literals: this file depends on nothing; a change
/// to a rule needs a migration here too): `PlaybackSpeed.range` 0.5–3 (`subscriptions.speed`),
/// `PlayerVolume.range` 0–1 (`player_state.volume`), `ShortForm.maxDuration` 180 (`items_short`),
/// `LibraryUsers.ownerID` 1, `ChangeFeedRule.pruneEvery` 1000 and `kept` 10000
/// (`changes_pruned`), the `Change.Kind` names, `SharingRule.tokenCharacters` 40
/// (`published_collections.token`).
enum PostgresSchema {
    static let migrations: [(name: String, sql: String)] = [
        (name: "v1-initial", sql: tables + counters + syncClock + changeLog + search),
        (name: "v3-published-collections", sql: publishedCollections),
        (name: "v4-user-identities", sql: userIdentities),
        (name: "v5-account-deletion", sql: accountDeletion),
        (name: "v6-sign-ins", sql: signIns),
        (name: "v7-feed-watched-counts", sql: feedWatchedCounts),
        (name: "v8-planned-once", sql: plannedOnce),
    ]

    /// The functions the triggers call on every write, in PL/pgSQL, whose statements are planned
    /// once per connection; the same statements and meaning as before. A `LANGUAGE sql` function
    /// that cannot be inlined (one that writes, or reads FROM a table) is parsed and planned
    /// again on every call, and the dynamic `EXECUTE` of `sync_changes_stamped` on every row:
    /// a progress write (three of them through its triggers) took 0.50–0.54 ms and takes 0.29 ms
    /// (pgbench, one client); recording 20,000 subscriptions spent 1.9 s in `subscription_watched`
    /// alone. The `RETURN` functions (`library_copying`, the search's) stay SQL: they are inlined
    /// into the plans that call them.
    static let plannedOnce = #"""
        CREATE OR REPLACE FUNCTION sync_clock_tick() RETURNS BIGINT LANGUAGE plpgsql AS $$
        DECLARE
            tick BIGINT;
        BEGIN
            UPDATE sync_clock SET last = greatest(floor(extract(epoch FROM clock_timestamp()))::bigint, last + 1)
                WHERE id = 1 RETURNING last INTO tick;
            RETURN tick;
        END $$;

        -- One static UPDATE per sync table, by the table the trigger fired on.
        CREATE OR REPLACE FUNCTION sync_changes_stamped() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF TG_TABLE_NAME = 'sync_subscription_changes' THEN
                UPDATE sync_subscription_changes SET changed = sync_clock_tick()
                    WHERE user_id = NEW.user_id AND url = NEW.url AND changed IS NULL;
            ELSIF TG_TABLE_NAME = 'sync_episode_changes' THEN
                UPDATE sync_episode_changes SET changed = sync_clock_tick()
                    WHERE user_id = NEW.user_id AND item = NEW.item AND changed IS NULL;
            ELSE
                RAISE EXCEPTION 'sync_changes_stamped: no sync table %', TG_TABLE_NAME;
            END IF;
            RETURN NULL;
        END $$;

        CREATE OR REPLACE FUNCTION compact_json(object json) RETURNS TEXT LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
        BEGIN
            RETURN (SELECT '{' || coalesce(string_agg(to_json(field.key)::text || ':' || field.value::text, ',' ORDER BY field.n), '') || '}'
                    FROM json_each(object) WITH ORDINALITY AS field(key, value, n));
        END $$;

        CREATE OR REPLACE FUNCTION log_change(for_user BIGINT, change_kind TEXT, change_payload json) RETURNS void LANGUAGE plpgsql AS $$
        BEGIN
            INSERT INTO changes_pending (user_id, kind, payload)
                SELECT for_user, change_kind, compact_json(change_payload)
                WHERE NOT library_copying() AND EXISTS (SELECT 1 FROM users WHERE id = for_user);
        END $$;

        CREATE OR REPLACE FUNCTION channel_reach_recomputed(channel BIGINT) RETURNS void LANGUAGE plpgsql AS $$
        BEGIN
            UPDATE channels SET private_addresses = CASE WHEN EXISTS (
                    SELECT 1 FROM subscriptions WHERE channel_id = channel AND private_addresses = 0) THEN 0 ELSE 1 END
                WHERE id = channel AND NOT library_copying();
        END $$;

        CREATE OR REPLACE FUNCTION subscription_watched(member BIGINT, channel BIGINT) RETURNS BIGINT LANGUAGE plpgsql STABLE AS $$
        BEGIN
            RETURN (SELECT count(*) FROM watch_state w JOIN items i ON i.id = w.item
                    WHERE w.user_id = member AND w.watched = 1 AND i.channel_id = channel);
        END $$;

        """#

    /// How many of a subscription's items its user has watched, and of their whole feed: as
    /// SQLite's `v26-feed-watched-counts` (its comment says why). v1's subscription triggers
    /// keep both counts. Watch rows are counted per statement over transition tables, as
    /// `items_uncounted` counts items: a bulk mark (a channel marked watched, a gpodder upload)
    /// would otherwise update one subscription row and one user row once per watch row, each
    /// update walking the row's versions so far in the transaction (quadratic). A watch row is
    /// counted through its item's channel; items that go take their watch rows by the foreign
    /// key's cascade, which runs once the items are gone, so those rows count nothing and
    /// `items_watched_uncounted` counts the followers of those channels again. An update of a
    /// watch row (progress, every 10 s while playing) runs `watch_state_watched_moved` over its
    /// one-row tables: a join, no write. A copy (`library_copying`) writes the counts as they were.
    static let feedWatchedCounts = #"""
        ALTER TABLE subscriptions ADD COLUMN watched BIGINT NOT NULL DEFAULT 0 CHECK (watched >= 0);
        ALTER TABLE users ADD COLUMN feed_watched BIGINT NOT NULL DEFAULT 0 CHECK (feed_watched >= 0);

        -- The user's watched rows of the subscription's channel.
        CREATE FUNCTION subscription_watched(member BIGINT, channel BIGINT) RETURNS BIGINT LANGUAGE sql STABLE AS $$
            SELECT count(*) FROM watch_state w JOIN items i ON i.id = w.item
                WHERE w.user_id = member AND w.watched = 1 AND i.channel_id = channel;
        $$;
        UPDATE subscriptions SET watched = subscription_watched(user_id, channel_id);
        UPDATE users u SET feed_watched = (SELECT coalesce(sum(watched), 0) FROM subscriptions WHERE user_id = u.id);

        -- v1's subscription triggers keep both counts: one write of the user's row per event.
        CREATE OR REPLACE FUNCTION subscriptions_items_moved() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            UPDATE users SET feed_items = feed_items - OLD.items + NEW.items, feed_watched = feed_watched - OLD.watched + NEW.watched
                WHERE id = NEW.user_id;
            RETURN NULL;
        END $$;
        DROP TRIGGER subscriptions_items_moved ON subscriptions;
        CREATE TRIGGER subscriptions_items_moved AFTER UPDATE OF items, watched ON subscriptions
            FOR EACH ROW WHEN (OLD.items <> NEW.items OR OLD.watched <> NEW.watched) EXECUTE FUNCTION subscriptions_items_moved();

        CREATE OR REPLACE FUNCTION subscriptions_uncounted() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            UPDATE users SET feed_items = feed_items - OLD.items, feed_watched = feed_watched - OLD.watched WHERE id = OLD.user_id;
            RETURN NULL;
        END $$;

        CREATE OR REPLACE FUNCTION subscriptions_tallied() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF library_copying() THEN RETURN NULL; END IF;
            UPDATE subscriptions SET items = (SELECT count(*) FROM items WHERE channel_id = NEW.channel_id),
                    watched = subscription_watched(NEW.user_id, NEW.channel_id)
                WHERE user_id = NEW.user_id AND channel_id = NEW.channel_id;
            RETURN NULL;
        END $$;

        -- Watched rows that came (`came`) and went (`went`), counted once per subscription and
        -- statement; a statement trigger sees the transition tables of its own event only.
        CREATE FUNCTION watch_state_watched_counted() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF library_copying() THEN RETURN NULL; END IF;
            UPDATE subscriptions s SET watched = s.watched + counted.delta
                FROM (SELECT c.user_id, i.channel_id, count(*) AS delta FROM came c JOIN items i ON i.id = c.item
                      WHERE c.watched = 1 GROUP BY c.user_id, i.channel_id) counted
                WHERE s.user_id = counted.user_id AND s.channel_id = counted.channel_id;
            RETURN NULL;
        END $$;
        CREATE FUNCTION watch_state_watched_uncounted() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            UPDATE subscriptions s SET watched = s.watched - counted.delta
                FROM (SELECT w.user_id, i.channel_id, count(*) AS delta FROM went w JOIN items i ON i.id = w.item
                      WHERE w.watched = 1 GROUP BY w.user_id, i.channel_id) counted
                WHERE s.user_id = counted.user_id AND s.channel_id = counted.channel_id;
            RETURN NULL;
        END $$;
        CREATE FUNCTION watch_state_watched_moved() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            WITH moves AS (
                SELECT user_id, item, 1 AS delta FROM came WHERE watched = 1
                UNION ALL
                SELECT user_id, item, -1 FROM went WHERE watched = 1
            ), counted AS (
                SELECT m.user_id, i.channel_id, sum(m.delta) AS delta
                FROM moves m JOIN items i ON i.id = m.item GROUP BY m.user_id, i.channel_id
            )
            UPDATE subscriptions s SET watched = s.watched + counted.delta FROM counted
                WHERE counted.delta <> 0 AND s.user_id = counted.user_id AND s.channel_id = counted.channel_id;
            RETURN NULL;
        END $$;
        CREATE TRIGGER watch_state_watched_counted AFTER INSERT ON watch_state
            REFERENCING NEW TABLE AS came FOR EACH STATEMENT EXECUTE FUNCTION watch_state_watched_counted();
        CREATE TRIGGER watch_state_watched_moved AFTER UPDATE ON watch_state
            REFERENCING OLD TABLE AS went NEW TABLE AS came FOR EACH STATEMENT EXECUTE FUNCTION watch_state_watched_moved();
        CREATE TRIGGER watch_state_watched_uncounted AFTER DELETE ON watch_state
            REFERENCING OLD TABLE AS went FOR EACH STATEMENT EXECUTE FUNCTION watch_state_watched_uncounted();

        -- Items that went: their watch rows went by the cascade, uncounted (their items were
        -- gone). The followers that remain of those channels (none, when a channel's last
        -- follower left) are counted again.
        CREATE FUNCTION items_watched_uncounted() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            UPDATE subscriptions s SET watched = subscription_watched(s.user_id, s.channel_id)
                WHERE s.channel_id IN (SELECT DISTINCT channel_id FROM gone_items) AND s.watched > 0;
            RETURN NULL;
        END $$;
        CREATE TRIGGER items_watched_uncounted AFTER DELETE ON items
            REFERENCING OLD TABLE AS gone_items FOR EACH STATEMENT EXECUTE FUNCTION items_watched_uncounted();
        """#

    /// Single sign-on (issue 29): as SQLite's `v24-user-identities`.
    static let userIdentities = """
        CREATE TABLE user_identities (
            id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            issuer TEXT NOT NULL CHECK (issuer <> ''),
            subject TEXT NOT NULL CHECK (subject <> ''),
            email TEXT CHECK (email <> ''),
            created_at BIGINT NOT NULL,
            last_used_at BIGINT,
            UNIQUE (issuer, subject)
        );
        CREATE INDEX user_identities_user ON user_identities (user_id);
        """

    /// Single sign-ons under way and re-authentications: as SQLite's `v25-sign-ins`.
    static let signIns = """
        CREATE TABLE sign_ins (
            state_hash TEXT PRIMARY KEY CHECK (state_hash <> ''),
            nonce TEXT NOT NULL CHECK (nonce <> ''),
            verifier TEXT NOT NULL CHECK (verifier <> ''),
            callback TEXT NOT NULL CHECK (callback <> ''),
            next_path TEXT CHECK (next_path <> ''),
            browser_hash TEXT CHECK (browser_hash <> ''),
            session_id BIGINT REFERENCES sessions(id) ON DELETE CASCADE,
            mobile_redirect TEXT CHECK (mobile_redirect <> ''),
            started_at BIGINT NOT NULL,
            CHECK ((next_path IS NOT NULL AND browser_hash IS NOT NULL AND mobile_redirect IS NULL)
                   OR (next_path IS NULL AND browser_hash IS NULL AND session_id IS NULL AND mobile_redirect IS NOT NULL))
        );
        CREATE INDEX sign_ins_started ON sign_ins (started_at);
        CREATE INDEX sign_ins_session ON sign_ins (session_id);

        CREATE TABLE session_reauthentications (
            session_id BIGINT PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
            authenticated_at BIGINT NOT NULL
        );
        """

    /// Every table and index. Ids are identities that never go back (SQLite's AUTOINCREMENT:
    /// an id is never handed out twice), BY DEFAULT so `db copy` can keep a library's ids (it
    /// then moves each sequence past the largest, `setval`). The owner (user 1) is made here as
    /// SQLite's v11 makes them: named after the `feedctl.owner_name` setting when the migrating
    /// session set it (`SET feedctl.owner_name = …`, a name `LibraryUsers.validName` accepts),
    /// else `owner`.
    static let tables = #"""
        CREATE TABLE users (
            id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            name TEXT NOT NULL UNIQUE CHECK (name <> ''),
            password_hash TEXT CHECK (password_hash <> ''),
            is_admin BIGINT NOT NULL DEFAULT 0 CHECK (is_admin IN (0, 1)),
            created_at BIGINT NOT NULL,
            -- The user's feed in all: the sum of their subscriptions' `items` (counters, below).
            feed_items BIGINT NOT NULL DEFAULT 0 CHECK (feed_items >= 0)
        );
        INSERT INTO users (name, password_hash, is_admin, created_at)
            VALUES (coalesce(nullif(current_setting('feedctl.owner_name', true), ''), 'owner'), NULL, 1,
                    floor(extract(epoch FROM now()))::bigint);

        CREATE TABLE sessions (
            id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            token_hash TEXT NOT NULL UNIQUE CHECK (token_hash <> ''),
            device_name TEXT,
            created_at BIGINT NOT NULL,
            expires_at BIGINT NOT NULL,
            last_used_at BIGINT
        );
        CREATE INDEX sessions_user ON sessions (user_id);

        CREATE TABLE channels (
            id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            platform TEXT NOT NULL CHECK (platform IN ('youtube', 'rumble', 'podcast')),
            source_url TEXT NOT NULL CHECK (source_url <> ''),
            feed_url TEXT NOT NULL UNIQUE CHECK (feed_url <> ''),
            name TEXT NOT NULL,
            image TEXT,
            added_at BIGINT NOT NULL,
            last_synced BIGINT,
            last_error TEXT,
            consecutive_errors BIGINT NOT NULL DEFAULT 0 CHECK (consecutive_errors >= 0),
            next_poll BIGINT,
            etag TEXT,
            last_modified TEXT,
            body_hash TEXT,
            -- JSON arrays, NULL when empty (text, not json: kept exactly as written, and comparable).
            warnings TEXT CHECK (warnings IS NULL OR json_typeof(warnings::json) = 'array'),
            self_url TEXT CHECK (self_url <> ''),
            next_page TEXT CHECK (next_page <> ''),
            funding TEXT CHECK (funding IS NULL OR json_typeof(funding::json) = 'array'),
            claimed_until BIGINT,
            claimed_by TEXT,
            -- 1 only while every subscription to it may reach private addresses (`AddressReach`).
            private_addresses BIGINT NOT NULL DEFAULT 0 CHECK (private_addresses IN (0, 1))
        );
        -- Polling's order (never polled first, then the oldest next poll): a claim reads the due
        -- channels in order and stops at its limit instead of sorting every channel.
        CREATE INDEX channels_due ON channels ((coalesce(next_poll, -9223372036854775808)), id);

        CREATE TABLE items (
            id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            channel_id BIGINT NOT NULL REFERENCES channels(id) ON DELETE CASCADE,
            item_id TEXT NOT NULL CHECK (item_id <> ''),
            guid TEXT,
            title TEXT NOT NULL,
            url TEXT,
            published BIGINT,
            updated BIGINT,
            duration BIGINT CHECK (duration >= 0),
            enclosure_url TEXT,
            enclosure_type TEXT,
            enclosure_length BIGINT CHECK (enclosure_length >= 0),
            thumbnail TEXT,
            author TEXT,
            description TEXT,
            views BIGINT CHECK (views >= 0),
            is_short BIGINT NOT NULL DEFAULT 0 CHECK (is_short IN (0, 1)),
            episode BIGINT,
            season BIGINT,
            chapters_url TEXT,
            transcript_url TEXT,
            discovered_at BIGINT NOT NULL,
            -- The owner's watch state (0 untouched, 1 in progress, 2 watched): catch-up's index.
            state BIGINT NOT NULL DEFAULT 0 CHECK (state IN (0, 1, 2)),
            explicit BIGINT CHECK (explicit IN (0, 1)),
            episode_type TEXT CHECK (episode_type <> ''),
            live_status TEXT CHECK (live_status <> ''),
            persons TEXT CHECK (persons IS NULL OR json_typeof(persons::json) = 'array'),
            funding TEXT CHECK (funding IS NULL OR json_typeof(funding::json) = 'array'),
            notes_markup TEXT CHECK (notes_markup <> ''),
            UNIQUE (channel_id, item_id)
        );
        CREATE INDEX items_state_published ON items (state, published, channel_id);
        -- The feed's orders read these backwards: newest first with undated items last (SQLite's
        -- NULL sorts first, so its DESC puts them last; here NULLS FIRST does that), ties by
        -- channel then id (SQLite's index ends in the rowid): a page reads about its rows, no
        -- sort. A channel's newest (discovery) likewise, id before `state` (SQLite's order
        -- puts it after), so that one item of a channel is one row read.
        CREATE INDEX items_newest ON items (published NULLS FIRST, discovered_at, channel_id, id);
        CREATE INDEX items_channel_published ON items (channel_id, published NULLS FIRST, discovered_at, id, state);
        CREATE INDEX items_short ON items (published NULLS FIRST, discovered_at, channel_id, id)
            WHERE duration <= 180 OR is_short = 1;

        CREATE TABLE subscriptions (
            user_id BIGINT NOT NULL DEFAULT 1 REFERENCES users(id) ON DELETE CASCADE,
            channel_id BIGINT NOT NULL REFERENCES channels(id) ON DELETE CASCADE,
            active BIGINT NOT NULL DEFAULT 1 CHECK (active IN (0, 1)),
            speed DOUBLE PRECISION NOT NULL DEFAULT 1.0 CHECK (speed >= 0.5 AND speed <= 3.0),
            speed_set BIGINT NOT NULL DEFAULT 0 CHECK (speed_set IN (0, 1)),
            added_at BIGINT NOT NULL,
            -- The channel's items, set by the ingest once per changed feed (counters, below).
            items BIGINT NOT NULL DEFAULT 0 CHECK (items >= 0),
            private_addresses BIGINT NOT NULL DEFAULT 0 CHECK (private_addresses IN (0, 1)),
            PRIMARY KEY (user_id, channel_id)
        );
        -- Who follows a channel (due channels, removing the last follower's channel).
        CREATE INDEX subscriptions_channel ON subscriptions (channel_id, active);

        CREATE TABLE watch_state (
            user_id BIGINT NOT NULL DEFAULT 1 REFERENCES users(id) ON DELETE CASCADE,
            item BIGINT NOT NULL REFERENCES items(id) ON DELETE CASCADE,
            watched BIGINT NOT NULL DEFAULT 0 CHECK (watched IN (0, 1)),
            progress_seconds BIGINT NOT NULL DEFAULT 0 CHECK (progress_seconds >= 0),
            watched_at BIGINT,
            updated_at BIGINT NOT NULL,
            CHECK (watched = 1 OR watched_at IS NULL),
            PRIMARY KEY (user_id, item)
        );
        CREATE INDEX watch_state_item ON watch_state (item);
        -- catch-up's resume list: a user's in-progress items, most recently played first.
        CREATE INDEX watch_state_in_progress ON watch_state (user_id, updated_at)
            WHERE watched = 0 AND progress_seconds > 0;

        CREATE TABLE saved_items (
            id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            user_id BIGINT NOT NULL DEFAULT 1 REFERENCES users(id) ON DELETE CASCADE,
            item BIGINT REFERENCES items(id) ON DELETE CASCADE,
            platform TEXT CHECK (platform <> ''),
            video_id TEXT CHECK (video_id <> ''),
            video_url TEXT CHECK (video_url <> ''),
            title TEXT,
            description TEXT,
            thumbnail_url TEXT,
            duration_seconds BIGINT CHECK (duration_seconds >= 0),
            view_count BIGINT CHECK (view_count >= 0),
            upload_date BIGINT,
            channel_name TEXT,
            channel_ref TEXT,
            channel_url TEXT,
            watched BIGINT NOT NULL DEFAULT 0 CHECK (watched IN (0, 1)),
            watched_at BIGINT,
            progress_seconds BIGINT NOT NULL DEFAULT 0 CHECK (progress_seconds >= 0),
            notes TEXT,
            saved_at BIGINT NOT NULL,
            updated_at BIGINT NOT NULL,
            -- A library item, or a page saved by URL with what names it.
            CHECK (item IS NOT NULL OR (platform IS NOT NULL AND video_id IS NOT NULL AND video_url IS NOT NULL AND title IS NOT NULL)),
            UNIQUE (user_id, item)
        );
        CREATE INDEX saved_items_item ON saved_items (item);
        -- Saving a page twice finds the first (the backend's rule: one per platform and video id).
        CREATE UNIQUE INDEX saved_items_page ON saved_items (user_id, platform, video_id) WHERE item IS NULL;
        CREATE INDEX saved_items_saved ON saved_items (user_id, saved_at);

        CREATE TABLE collections (
            id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            user_id BIGINT NOT NULL DEFAULT 1 REFERENCES users(id) ON DELETE CASCADE,
            name TEXT NOT NULL CHECK (name <> ''),
            created_at BIGINT NOT NULL,
            description TEXT,
            cover_url TEXT,
            sort_order BIGINT NOT NULL DEFAULT 0 CHECK (sort_order >= 0),
            updated_at BIGINT,
            UNIQUE (user_id, name)
        );

        CREATE TABLE collection_items (
            collection BIGINT NOT NULL REFERENCES collections(id) ON DELETE CASCADE,
            item BIGINT NOT NULL REFERENCES items(id) ON DELETE CASCADE,
            position BIGINT NOT NULL,
            added_at BIGINT NOT NULL,
            PRIMARY KEY (collection, item),
            UNIQUE (collection, position)
        );
        CREATE INDEX collection_items_item ON collection_items (item);

        -- History outlives channels: what was played is copied here, the link is optional.
        CREATE TABLE play_history (
            id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            user_id BIGINT NOT NULL DEFAULT 1 REFERENCES users(id) ON DELETE CASCADE,
            item BIGINT REFERENCES items(id) ON DELETE SET NULL,
            title TEXT NOT NULL,
            channel_name TEXT NOT NULL,
            url TEXT,
            position_seconds BIGINT CHECK (position_seconds >= 0),
            played_at BIGINT NOT NULL
        );
        CREATE INDEX play_history_item ON play_history (item);
        CREATE INDEX play_history_played ON play_history (user_id, played_at);

        -- A queue entry is exactly one of a library item (which leaves with its channel), a URL or a file.
        CREATE TABLE up_next (
            id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            user_id BIGINT NOT NULL DEFAULT 1 REFERENCES users(id) ON DELETE CASCADE,
            position BIGINT NOT NULL CHECK (position >= 1),
            item BIGINT REFERENCES items(id) ON DELETE CASCADE,
            url TEXT CHECK (url <> ''),
            file TEXT CHECK (file <> ''),
            title TEXT NOT NULL,
            added_at BIGINT NOT NULL,
            CHECK (num_nonnulls(item, url, file) = 1)
        );
        CREATE INDEX up_next_position ON up_next (user_id, position, id);
        CREATE INDEX up_next_item ON up_next (item);

        CREATE TABLE player_state (
            user_id BIGINT PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
            volume DOUBLE PRECISION CHECK (volume >= 0.0 AND volume <= 1.0),
            last_item BIGINT REFERENCES items(id) ON DELETE SET NULL,
            last_url TEXT CHECK (last_url <> ''),
            last_file TEXT CHECK (last_file <> ''),
            last_title TEXT,
            last_position DOUBLE PRECISION NOT NULL DEFAULT 0 CHECK (last_position >= 0),
            updated_at BIGINT NOT NULL,
            CHECK (num_nonnulls(last_item, last_url, last_file) <= 1)
        );

        -- Fetched `podcast:chapters` files, one per item, keyed by the URL they came from.
        CREATE TABLE chapters_cache (
            item BIGINT PRIMARY KEY REFERENCES items(id) ON DELETE CASCADE,
            url TEXT NOT NULL CHECK (url <> ''),
            body TEXT NOT NULL,
            fetched_at BIGINT NOT NULL
        );

        -- gpodder.net sync (SQLite's v13, v16).
        CREATE TABLE sync_devices (
            user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            device TEXT NOT NULL CHECK (device <> ''),
            caption TEXT NOT NULL DEFAULT '',
            type TEXT NOT NULL DEFAULT 'other' CHECK (type IN ('desktop', 'laptop', 'mobile', 'server', 'other')),
            created_at BIGINT NOT NULL,
            updated_at BIGINT NOT NULL,
            PRIMARY KEY (user_id, device)
        );

        CREATE TABLE episode_actions (
            id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            uploaded BIGINT NOT NULL,
            podcast TEXT NOT NULL CHECK (podcast <> ''),
            episode TEXT NOT NULL CHECK (episode <> ''),
            guid TEXT CHECK (guid <> ''),
            action TEXT NOT NULL CHECK (action IN ('download', 'play', 'delete', 'new', 'flattr')),
            device TEXT CHECK (device <> ''),
            timestamp BIGINT NOT NULL,
            started BIGINT,
            position BIGINT CHECK (position >= -1),
            total BIGINT,
            item BIGINT REFERENCES items(id) ON DELETE SET NULL,
            CHECK (action = 'play' OR (started IS NULL AND position IS NULL AND total IS NULL))
        );
        CREATE INDEX episode_actions_since ON episode_actions (user_id, uploaded);
        CREATE INDEX episode_actions_item ON episode_actions (item);
        CREATE INDEX episode_actions_pending ON episode_actions (podcast) WHERE item IS NULL AND action IN ('play', 'new');

        """#

    /// The counters SQLite's triggers keep, kept the same way. `items.state` mirrors the owner's
    /// watch state (v3, v11). A subscription's `items` is set by the ingest once per changed feed
    /// (v17) and counted once when the subscription is made; items that go (a channel's cascade)
    /// count down, per statement here (one UPDATE for a channel's thousands of items, not one per
    /// item); a user's `feed_items` follows their subscriptions' counts (v15). A channel's
    /// `private_addresses` is 1 only while every subscription to it is (v18).
    ///
    /// PostgreSQL fires a table's triggers for one event in name order (SQLite: newest first).
    /// The one order anyone can see is a new subscription's: its `added` change comes before the
    /// `sync` change of its first count, as in SQLite; so SQLite's `subscriptions_counted` is
    /// `subscriptions_tallied` here, named to fire after `subscriptions_logged_inserted`.
    static let counters = #"""
        -- `feedctl db copy` writes rows with the counters, sync rows and change log they had: while
        -- its transaction says so (`SET LOCAL feedctl.copying = 'on'`), the insert triggers that
        -- derive those from a new row (counts, reach, sync rows, change log) do nothing.
        CREATE FUNCTION library_copying() RETURNS boolean LANGUAGE sql STABLE PARALLEL SAFE
            RETURN coalesce(current_setting('feedctl.copying', true), '') = 'on';

        CREATE FUNCTION watch_state_code(watched BIGINT, progress_seconds BIGINT) RETURNS BIGINT
            LANGUAGE sql IMMUTABLE PARALLEL SAFE
            RETURN CASE WHEN watched = 1 THEN 2 WHEN progress_seconds > 0 THEN 1 ELSE 0 END;

        CREATE FUNCTION watch_state_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF library_copying() THEN RETURN NULL; END IF;
            UPDATE items SET state = watch_state_code(NEW.watched, NEW.progress_seconds) WHERE id = NEW.item;
            RETURN NULL;
        END $$;
        CREATE TRIGGER watch_state_inserted AFTER INSERT ON watch_state
            FOR EACH ROW WHEN (NEW.user_id = 1) EXECUTE FUNCTION watch_state_inserted();

        CREATE FUNCTION watch_state_updated() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            UPDATE items SET state = 0
                WHERE id = OLD.item AND OLD.user_id = 1 AND (OLD.item <> NEW.item OR NEW.user_id <> 1);
            UPDATE items SET state = watch_state_code(NEW.watched, NEW.progress_seconds)
                WHERE id = NEW.item AND NEW.user_id = 1;
            RETURN NULL;
        END $$;
        CREATE TRIGGER watch_state_updated AFTER UPDATE ON watch_state
            FOR EACH ROW EXECUTE FUNCTION watch_state_updated();

        CREATE FUNCTION watch_state_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            UPDATE items SET state = 0 WHERE id = OLD.item;
            RETURN NULL;
        END $$;
        CREATE TRIGGER watch_state_deleted AFTER DELETE ON watch_state
            FOR EACH ROW WHEN (OLD.user_id = 1) EXECUTE FUNCTION watch_state_deleted();

        CREATE FUNCTION subscriptions_items_moved() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            UPDATE users SET feed_items = feed_items - OLD.items + NEW.items WHERE id = NEW.user_id;
            RETURN NULL;
        END $$;
        CREATE TRIGGER subscriptions_items_moved AFTER UPDATE OF items ON subscriptions
            FOR EACH ROW WHEN (OLD.items <> NEW.items) EXECUTE FUNCTION subscriptions_items_moved();

        CREATE FUNCTION subscriptions_uncounted() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            UPDATE users SET feed_items = feed_items - OLD.items WHERE id = OLD.user_id;
            RETURN NULL;
        END $$;
        CREATE TRIGGER subscriptions_uncounted AFTER DELETE ON subscriptions
            FOR EACH ROW EXECUTE FUNCTION subscriptions_uncounted();

        -- SQLite's subscriptions_counted (see above for the name).
        CREATE FUNCTION subscriptions_tallied() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF library_copying() THEN RETURN NULL; END IF;
            UPDATE subscriptions SET items = (SELECT count(*) FROM items WHERE channel_id = NEW.channel_id)
                WHERE user_id = NEW.user_id AND channel_id = NEW.channel_id;
            RETURN NULL;
        END $$;
        CREATE TRIGGER subscriptions_tallied AFTER INSERT ON subscriptions
            FOR EACH ROW EXECUTE FUNCTION subscriptions_tallied();

        -- Whichever the channel's cascade deletes first, its items or its subscriptions, the
        -- followers' totals lose the channel's items once.
        CREATE FUNCTION items_uncounted() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            UPDATE subscriptions s SET items = s.items - gone.items
                FROM (SELECT channel_id, count(*) AS items FROM gone_items GROUP BY channel_id) gone
                WHERE s.channel_id = gone.channel_id;
            RETURN NULL;
        END $$;
        CREATE TRIGGER items_uncounted AFTER DELETE ON items
            REFERENCING OLD TABLE AS gone_items FOR EACH STATEMENT EXECUTE FUNCTION items_uncounted();

        CREATE FUNCTION channel_reach_recomputed(channel BIGINT) RETURNS void LANGUAGE sql AS $$
            UPDATE channels SET private_addresses = CASE WHEN EXISTS (
                    SELECT 1 FROM subscriptions WHERE channel_id = channel AND private_addresses = 0) THEN 0 ELSE 1 END
                WHERE id = channel AND NOT library_copying();
        $$;
        -- A subscription added, removed or whose reach changed: its channel's reach again.
        CREATE FUNCTION subscriptions_reach_recomputed() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF TG_OP = 'DELETE' THEN
                PERFORM channel_reach_recomputed(OLD.channel_id);
            ELSE
                PERFORM channel_reach_recomputed(NEW.channel_id);
            END IF;
            RETURN NULL;
        END $$;
        CREATE TRIGGER subscriptions_reach_added AFTER INSERT ON subscriptions
            FOR EACH ROW EXECUTE FUNCTION subscriptions_reach_recomputed();
        CREATE TRIGGER subscriptions_reach_removed AFTER DELETE ON subscriptions
            FOR EACH ROW EXECUTE FUNCTION subscriptions_reach_recomputed();
        CREATE TRIGGER subscriptions_reach_changed AFTER UPDATE OF private_addresses ON subscriptions
            FOR EACH ROW WHEN (OLD.private_addresses <> NEW.private_addresses) EXECUTE FUNCTION subscriptions_reach_recomputed();

        """#

    /// The gpodder sync clock (v13): `sync_clock` is the one monotonic clock every pullable
    /// change is stamped from: Unix seconds, always past the last reading handed out. A reader
    /// takes the changes stamped after its `since` and the clock's reading as its next `since`,
    /// so stamps must appear in the order of their transactions' commits. SQLite has one writer
    /// at a time; here a row is stamped at its transaction's COMMIT (a deferred constraint
    /// trigger) under the clock row's lock, which is then held only while the commit finishes:
    /// stamps are handed out in commit order, and the lock, taken last, never waits for a lock
    /// another writer holds (no deadlock). Until then the row's `changed` is NULL: no other
    /// session ever sees that. A row written with its stamp (`db copy`) keeps it.
    static let syncClock = #"""
        CREATE TABLE sync_clock (
            id BIGINT PRIMARY KEY CHECK (id = 1),
            last BIGINT NOT NULL
        );
        INSERT INTO sync_clock (id, last) VALUES (1, floor(extract(epoch FROM now()))::bigint);

        -- Each user's latest change per feed URL (subscribed or not, and when).
        CREATE TABLE sync_subscription_changes (
            user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            url TEXT NOT NULL CHECK (url <> ''),
            subscribed BIGINT NOT NULL CHECK (subscribed IN (0, 1)),
            changed BIGINT,
            PRIMARY KEY (user_id, url)
        );
        CREATE INDEX sync_subscription_changes_since ON sync_subscription_changes (user_id, changed);

        -- Each item whose watch state changed, per user (not a log: progress is saved every few seconds).
        CREATE TABLE sync_episode_changes (
            user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            item BIGINT NOT NULL REFERENCES items(id) ON DELETE CASCADE,
            changed BIGINT,
            PRIMARY KEY (user_id, item)
        );
        CREATE INDEX sync_episode_changes_since ON sync_episode_changes (user_id, changed);
        CREATE INDEX sync_episode_changes_item ON sync_episode_changes (item);

        -- The clock's next reading (SQLite's Schema.syncClockTick); the clock row stays locked
        -- until the transaction ends.
        CREATE FUNCTION sync_clock_tick() RETURNS BIGINT LANGUAGE sql AS $$
            UPDATE sync_clock SET last = greatest(floor(extract(epoch FROM clock_timestamp()))::bigint, last + 1)
                WHERE id = 1 RETURNING last;
        $$;

        -- Stamps a row of either sync table at COMMIT, unless it was stamped since it was queued
        -- (a row written twice in one transaction is stamped once). TG_ARGV[0] is the column
        -- that, with user_id, is the table's key.
        CREATE FUNCTION sync_changes_stamped() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            EXECUTE format('UPDATE %I.%I SET changed = sync_clock_tick() WHERE user_id = $1 AND %I = ($2).%I AND changed IS NULL',
                           TG_TABLE_SCHEMA, TG_TABLE_NAME, TG_ARGV[0], TG_ARGV[0])
                USING NEW.user_id, NEW;
            RETURN NULL;
        END $$;
        CREATE CONSTRAINT TRIGGER sync_subscription_changes_stamped AFTER INSERT OR UPDATE ON sync_subscription_changes
            DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (NEW.changed IS NULL)
            EXECUTE FUNCTION sync_changes_stamped('url');
        CREATE CONSTRAINT TRIGGER sync_episode_changes_stamped AFTER INSERT OR UPDATE ON sync_episode_changes
            DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (NEW.changed IS NULL)
            EXECUTE FUNCTION sync_changes_stamped('item');

        CREATE FUNCTION subscriptions_sync_added() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF library_copying() THEN RETURN NULL; END IF;
            INSERT INTO sync_subscription_changes (user_id, url, subscribed, changed)
                SELECT NEW.user_id, feed_url, 1, NULL FROM channels WHERE id = NEW.channel_id
                ON CONFLICT (user_id, url) DO UPDATE SET subscribed = 1, changed = NULL;
            RETURN NULL;
        END $$;
        CREATE TRIGGER subscriptions_sync_added AFTER INSERT ON subscriptions
            FOR EACH ROW EXECUTE FUNCTION subscriptions_sync_added();

        -- Not when the user is being removed (their rows go with them).
        CREATE FUNCTION subscriptions_sync_removed() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF EXISTS (SELECT 1 FROM users WHERE id = OLD.user_id) THEN
                INSERT INTO sync_subscription_changes (user_id, url, subscribed, changed)
                    SELECT OLD.user_id, feed_url, 0, NULL FROM channels WHERE id = OLD.channel_id
                    ON CONFLICT (user_id, url) DO UPDATE SET subscribed = 0, changed = NULL;
            END IF;
            RETURN NULL;
        END $$;
        CREATE TRIGGER subscriptions_sync_removed AFTER DELETE ON subscriptions
            FOR EACH ROW EXECUTE FUNCTION subscriptions_sync_removed();

        -- A permanent redirect moved the feed: its followers drop the old URL and take the new.
        CREATE FUNCTION channels_sync_moved() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            INSERT INTO sync_subscription_changes (user_id, url, subscribed, changed)
                SELECT user_id, OLD.feed_url, 0, NULL FROM subscriptions WHERE channel_id = NEW.id
                ON CONFLICT (user_id, url) DO UPDATE SET subscribed = 0, changed = NULL;
            INSERT INTO sync_subscription_changes (user_id, url, subscribed, changed)
                SELECT user_id, NEW.feed_url, 1, NULL FROM subscriptions WHERE channel_id = NEW.id
                ON CONFLICT (user_id, url) DO UPDATE SET subscribed = 1, changed = NULL;
            RETURN NULL;
        END $$;
        CREATE TRIGGER channels_sync_moved AFTER UPDATE OF feed_url ON channels
            FOR EACH ROW WHEN (OLD.feed_url <> NEW.feed_url) EXECUTE FUNCTION channels_sync_moved();

        CREATE FUNCTION watch_state_sync_changed() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF library_copying() THEN RETURN NULL; END IF;
            INSERT INTO sync_episode_changes (user_id, item, changed) VALUES (NEW.user_id, NEW.item, NULL)
                ON CONFLICT (user_id, item) DO UPDATE SET changed = NULL;
            RETURN NULL;
        END $$;
        CREATE TRIGGER watch_state_sync_inserted AFTER INSERT ON watch_state
            FOR EACH ROW EXECUTE FUNCTION watch_state_sync_changed();
        CREATE TRIGGER watch_state_sync_updated AFTER UPDATE OF watched, progress_seconds ON watch_state
            FOR EACH ROW WHEN (OLD.watched <> NEW.watched OR OLD.progress_seconds <> NEW.progress_seconds)
            EXECUTE FUNCTION watch_state_sync_changed();

        """#

    /// The change log `/api/events` streams (v19): a row per change to a user's state, written
    /// by triggers, with the same rows, kinds and payloads as SQLite's (the payload's JSON text
    /// byte for byte: compact, keys in order). `seq` only grows and must appear in commit order
    /// (a reader asks for what follows the last it saw), so a change is first written to
    /// `changes_pending` (unlogged: it never outlives its transaction) and published at COMMIT
    /// by a deferred trigger under the sync clock's row lock (the same one lock as the stamps,
    /// so the two cannot deadlock): `seq` is the largest plus one, as SQLite's rowid, and a
    /// rolled-back write takes no number. Each row published is announced with
    /// `pg_notify('feedctl_changes', seq)`, delivered at commit, so replicas LISTEN instead of
    /// polling. `user_id` has no foreign key (a removed user's cascade logs changes for a user
    /// already gone); every `pruneEvery`-th change deletes those older than `kept`.
    static let changeLog = #"""
        CREATE TABLE changes (
            seq BIGINT PRIMARY KEY,
            user_id BIGINT NOT NULL,
            kind TEXT NOT NULL CHECK (kind IN ('watch', 'saved', 'collection', 'subscription', 'sync')),
            payload TEXT NOT NULL CHECK (json_typeof(payload::json) IS NOT NULL),
            at BIGINT NOT NULL DEFAULT floor(extract(epoch FROM statement_timestamp()))::bigint
        );
        CREATE FUNCTION changes_pruned() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            DELETE FROM changes WHERE seq <= NEW.seq - 10000;
            RETURN NULL;
        END $$;
        CREATE TRIGGER changes_pruned AFTER INSERT ON changes
            FOR EACH ROW WHEN (NEW.seq % 1000 = 0) EXECUTE FUNCTION changes_pruned();
        CREATE FUNCTION changes_notified() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            PERFORM pg_notify('feedctl_changes', NEW.seq::text);
            RETURN NULL;
        END $$;
        CREATE TRIGGER changes_notified AFTER INSERT ON changes
            FOR EACH ROW EXECUTE FUNCTION changes_notified();

        CREATE UNLOGGED TABLE changes_pending (
            id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            user_id BIGINT NOT NULL,
            kind TEXT NOT NULL,
            payload TEXT NOT NULL,
            at BIGINT NOT NULL DEFAULT floor(extract(epoch FROM statement_timestamp()))::bigint
        );
        CREATE FUNCTION changes_published() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            PERFORM 1 FROM sync_clock WHERE id = 1 FOR NO KEY UPDATE;
            INSERT INTO changes (seq, user_id, kind, payload, at)
                SELECT coalesce(max(seq), 0) + 1, NEW.user_id, NEW.kind, NEW.payload, NEW.at FROM changes;
            DELETE FROM changes_pending WHERE id = NEW.id;
            RETURN NULL;
        END $$;
        CREATE CONSTRAINT TRIGGER changes_published AFTER INSERT ON changes_pending
            DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION changes_published();

        -- A JSON object as SQLite's json_object writes it: no spaces, keys in the order given.
        CREATE FUNCTION compact_json(object json) RETURNS TEXT LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
            SELECT '{' || coalesce(string_agg(to_json(field.key)::text || ':' || field.value::text, ',' ORDER BY field.n), '') || '}'
            FROM json_each(object) WITH ORDINALITY AS field(key, value, n);
        $$;
        CREATE FUNCTION log_change(for_user BIGINT, change_kind TEXT, change_payload json) RETURNS void LANGUAGE sql AS $$
            INSERT INTO changes_pending (user_id, kind, payload)
                SELECT for_user, change_kind, compact_json(change_payload) WHERE NOT library_copying();
        $$;

        CREATE FUNCTION watch_state_logged() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            PERFORM log_change(NEW.user_id, 'watch', json_build_object(
                'item_id', NEW.item, 'watched', NEW.watched = 1, 'progress_seconds', NEW.progress_seconds));
            RETURN NULL;
        END $$;
        CREATE TRIGGER watch_state_logged_inserted AFTER INSERT ON watch_state
            FOR EACH ROW EXECUTE FUNCTION watch_state_logged();
        CREATE TRIGGER watch_state_logged_updated AFTER UPDATE OF watched, progress_seconds ON watch_state
            FOR EACH ROW WHEN (OLD.watched <> NEW.watched OR OLD.progress_seconds <> NEW.progress_seconds)
            EXECUTE FUNCTION watch_state_logged();

        -- `added`, `updated` (its updated_at written: one row per update) or `removed`.
        CREATE FUNCTION saved_items_logged() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF TG_OP = 'DELETE' THEN
                PERFORM log_change(OLD.user_id, 'saved', json_build_object('saved_id', OLD.id, 'item_id', OLD.item, 'action', 'removed'));
            ELSE
                PERFORM log_change(NEW.user_id, 'saved', json_build_object('saved_id', NEW.id, 'item_id', NEW.item,
                                                                           'action', CASE TG_OP WHEN 'INSERT' THEN 'added' ELSE 'updated' END));
            END IF;
            RETURN NULL;
        END $$;
        CREATE TRIGGER saved_items_logged_inserted AFTER INSERT ON saved_items
            FOR EACH ROW EXECUTE FUNCTION saved_items_logged();
        CREATE TRIGGER saved_items_logged_updated AFTER UPDATE OF updated_at ON saved_items
            FOR EACH ROW EXECUTE FUNCTION saved_items_logged();
        CREATE TRIGGER saved_items_logged_deleted AFTER DELETE ON saved_items
            FOR EACH ROW EXECUTE FUNCTION saved_items_logged();

        CREATE FUNCTION collections_logged() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF TG_OP = 'DELETE' THEN
                PERFORM log_change(OLD.user_id, 'collection', json_build_object('collection_id', OLD.id, 'action', 'deleted'));
            ELSE
                PERFORM log_change(NEW.user_id, 'collection', json_build_object('collection_id', NEW.id,
                                                                                'action', CASE TG_OP WHEN 'INSERT' THEN 'created' ELSE 'updated' END));
            END IF;
            RETURN NULL;
        END $$;
        CREATE TRIGGER collections_logged_inserted AFTER INSERT ON collections
            FOR EACH ROW EXECUTE FUNCTION collections_logged();
        CREATE TRIGGER collections_logged_updated AFTER UPDATE OF name, description, cover_url, sort_order ON collections
            FOR EACH ROW WHEN (OLD.name IS DISTINCT FROM NEW.name OR OLD.description IS DISTINCT FROM NEW.description
                               OR OLD.cover_url IS DISTINCT FROM NEW.cover_url OR OLD.sort_order IS DISTINCT FROM NEW.sort_order)
            EXECUTE FUNCTION collections_logged();
        CREATE TRIGGER collections_logged_deleted AFTER DELETE ON collections
            FOR EACH ROW EXECUTE FUNCTION collections_logged();

        -- A collection's items are its owner's. A deleted collection's items go by cascade after
        -- it and log nothing (no such collection any more): its `deleted` says it all.
        CREATE FUNCTION collection_items_logged() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            PERFORM log_change(user_id, 'collection', json_build_object('collection_id', id, 'action', 'items'))
                FROM collections WHERE id = CASE TG_OP WHEN 'DELETE' THEN OLD.collection ELSE NEW.collection END;
            RETURN NULL;
        END $$;
        CREATE TRIGGER collection_items_logged_inserted AFTER INSERT ON collection_items
            FOR EACH ROW EXECUTE FUNCTION collection_items_logged();
        CREATE TRIGGER collection_items_logged_deleted AFTER DELETE ON collection_items
            FOR EACH ROW EXECUTE FUNCTION collection_items_logged();
        -- Renumbering moves every position out of the way (negative), then sets each: one row, the first.
        CREATE TRIGGER collection_items_logged_renumbered AFTER UPDATE OF position ON collection_items
            FOR EACH ROW WHEN (NEW.position = 1 AND OLD.position <> 1) EXECUTE FUNCTION collection_items_logged();

        CREATE FUNCTION subscriptions_logged() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF TG_OP = 'DELETE' THEN
                PERFORM log_change(OLD.user_id, 'subscription', json_build_object('channel_id', OLD.channel_id, 'action', 'removed'));
            ELSE
                PERFORM log_change(NEW.user_id, 'subscription', json_build_object('channel_id', NEW.channel_id,
                                                                                  'action', CASE TG_OP WHEN 'INSERT' THEN 'added' ELSE 'updated' END));
            END IF;
            RETURN NULL;
        END $$;
        CREATE TRIGGER subscriptions_logged_inserted AFTER INSERT ON subscriptions
            FOR EACH ROW EXECUTE FUNCTION subscriptions_logged();
        CREATE TRIGGER subscriptions_logged_updated AFTER UPDATE OF active, speed ON subscriptions
            FOR EACH ROW WHEN (OLD.active <> NEW.active OR OLD.speed <> NEW.speed) EXECUTE FUNCTION subscriptions_logged();
        CREATE TRIGGER subscriptions_logged_deleted AFTER DELETE ON subscriptions
            FOR EACH ROW EXECUTE FUNCTION subscriptions_logged();

        -- A poll's new items: the ingest writes each subscription's count once per changed feed;
        -- a new subscription's first count is its channel's items, new to its user.
        CREATE FUNCTION subscriptions_logged_synced() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            PERFORM log_change(NEW.user_id, 'sync', json_build_object(
                'channel_id', NEW.channel_id, 'new_items', NEW.items - OLD.items, 'error', NULL));
            RETURN NULL;
        END $$;
        CREATE TRIGGER subscriptions_logged_synced AFTER UPDATE OF items ON subscriptions
            FOR EACH ROW WHEN (NEW.items > OLD.items) EXECUTE FUNCTION subscriptions_logged_synced();

        CREATE FUNCTION channels_logged_error() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            PERFORM log_change(user_id, 'sync', json_build_object('channel_id', NEW.id, 'new_items', 0, 'error', NEW.last_error))
                FROM subscriptions WHERE channel_id = NEW.id ORDER BY user_id;
            RETURN NULL;
        END $$;
        CREATE TRIGGER channels_logged_error AFTER UPDATE OF last_error ON channels
            FOR EACH ROW WHEN (OLD.last_error IS DISTINCT FROM NEW.last_error) EXECUTE FUNCTION channels_logged_error();

        """#

    /// Full-text search over item titles, show notes and channel names (`SearchRule`): every
    /// word must match, the last one as a prefix too, accents and case ignored. Each item's
    /// `items_search.document` is kept by triggers (SQLite's FTS5 index trails the items and is
    /// caught up by the next search; here an item is indexed as it goes in): title weighted A,
    /// channel name B, show notes D, which the store's bm25 reads as `SearchRule`'s weights
    /// (PostgresLibrary+Search.swift).
    ///
    /// Words are cut as FTS5's `unicode61` tokenizer cuts them, not as PostgreSQL's parser
    /// would (it keeps `example.com/x`, `3.14`, `a@b.org` whole, so "example" would not find
    /// them): `search_fold` lowers and unaccents the text and turns every punctuation, space,
    /// control and ASCII symbol character into a space, with ICU's Unicode classes and case
    /// mapping (`und-x-icu`), whatever the database's locale; then `to_tsvector('simple', …)`
    /// (no stemming, no stop words: FTS5 has neither) reads plain words. The words typed are
    /// cut by `SearchTerms` (the rule both stores share) and each is folded and read the same
    /// way here (`search_term`), so documents and queries agree by construction.
    static let search = #"""
        CREATE EXTENSION IF NOT EXISTS unaccent;

        -- (A standard SQL body: its names are bound here, whatever the search_path when it runs.)
        CREATE FUNCTION search_fold(raw TEXT) RETURNS TEXT
            LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
            RETURN regexp_replace(lower(unaccent('unaccent'::regdictionary, raw) COLLATE "und-x-icu"),
                                  '[[:space:][:punct:][:cntrl:]$+<=>^`|~]+', ' ', 'g');

        CREATE FUNCTION search_document(title TEXT, notes TEXT, channel TEXT) RETURNS tsvector
            LANGUAGE sql IMMUTABLE PARALLEL SAFE
            RETURN setweight(to_tsvector('simple', coalesce(search_fold(title), '')), 'A')
                || setweight(to_tsvector('simple', coalesce(search_fold(channel), '')), 'B')
                || setweight(to_tsvector('simple', coalesce(search_fold(notes), '')), 'D');

        -- One word of the typed text (as `SearchTerms` cut it), folded and cut as documents are: its
        -- lexemes in a row (a phrase: `unaccent` may make several, "x½" is "x1 2"), the last one a
        -- prefix when `prefix`. NULL when nothing of it is left to find (a lone accent, a word too
        -- long for the index). phraseto_tsquery reads the words as words, never as query syntax; a
        -- prefix is marked on its canonical output, whose quoting is PostgreSQL's own. Notices (a word
        -- too long, no lexeme) stay on the server: libpq would print them to the client's stderr.
        CREATE FUNCTION search_term(word TEXT, prefix BOOLEAN) RETURNS tsquery
            LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE SET client_min_messages = warning
            RETURN CASE WHEN to_tsvector('simple', search_fold(word)) = ''::tsvector THEN NULL
                        WHEN prefix THEN (phraseto_tsquery('simple', search_fold(word))::text || ':*')::tsquery
                        ELSE phraseto_tsquery('simple', search_fold(word)) END;

        -- Every word (`search_term`) ANDed; NULL when there is none or one can match nothing. Joined
        -- as text and read once: ANDing one at a time copies the query each time (quadratic).
        CREATE FUNCTION search_query(words TEXT[], prefixes BOOLEAN[]) RETURNS tsquery
            LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
            BEGIN ATOMIC
                SELECT CASE WHEN count(*) > 0 AND count(term) = count(*)
                            THEN string_agg('(' || term::text || ')', ' & ' ORDER BY n)::tsquery END
                FROM unnest(words, prefixes) WITH ORDINALITY AS typed(word, prefix, n), search_term(word, prefix) AS term;
            END;

        -- A document's length in words (bm25's D: every position of every lexeme).
        CREATE FUNCTION search_length(document tsvector) RETURNS BIGINT
            LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
            RETURN (SELECT coalesce(sum(cardinality(positions)), 0) FROM unnest(document));

        CREATE TABLE items_search (
            item BIGINT PRIMARY KEY REFERENCES items(id) ON DELETE CASCADE,
            document tsvector NOT NULL,
            -- Kept with the document, so ranking reads no document twice.
            length BIGINT GENERATED ALWAYS AS (search_length(document)) STORED
        );
        CREATE INDEX items_search_document ON items_search USING gin (document);

        -- Per statement: an ingest's items are indexed in one INSERT.
        CREATE FUNCTION items_search_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            INSERT INTO items_search (item, document)
                SELECT i.id, search_document(i.title, i.description, c.name)
                FROM new_items i JOIN channels c ON c.id = i.channel_id;
            RETURN NULL;
        END $$;
        CREATE TRIGGER items_search_inserted AFTER INSERT ON items
            REFERENCING NEW TABLE AS new_items FOR EACH STATEMENT EXECUTE FUNCTION items_search_inserted();

        CREATE FUNCTION items_search_updated() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            UPDATE items_search SET document = search_document(NEW.title, NEW.description, c.name)
                FROM channels c WHERE c.id = NEW.channel_id AND items_search.item = NEW.id;
            RETURN NULL;
        END $$;
        CREATE TRIGGER items_search_updated AFTER UPDATE OF title, description, channel_id ON items
            FOR EACH ROW WHEN (OLD.title IS DISTINCT FROM NEW.title OR OLD.description IS DISTINCT FROM NEW.description
                               OR OLD.channel_id <> NEW.channel_id)
            EXECUTE FUNCTION items_search_updated();

        CREATE FUNCTION channels_search_renamed() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            UPDATE items_search SET document = search_document(i.title, i.description, NEW.name)
                FROM items i WHERE i.channel_id = NEW.id AND items_search.item = i.id;
            RETURN NULL;
        END $$;
        CREATE TRIGGER channels_search_renamed AFTER UPDATE OF name ON channels
            FOR EACH ROW WHEN (OLD.name IS DISTINCT FROM NEW.name) EXECUTE FUNCTION channels_search_renamed();

        """#

    /// Published collections and following them (SQLite's `v23-published-collections`, whose
    /// comment says what each table and trigger is for): the same tables, rules and change-log
    /// rows. The change log's `kind` CHECK gains `followed`. A collection deleted withdraws its
    /// links first (a BEFORE trigger), then its foreign key lets go of them (PostgreSQL runs that
    /// after the row's triggers), so a link's row outlives its collection, withdrawn.
    static let publishedCollections = #"""
        ALTER TABLE changes DROP CONSTRAINT changes_kind_check;
        ALTER TABLE changes ADD CONSTRAINT changes_kind_check
            CHECK (kind IN ('watch', 'saved', 'collection', 'subscription', 'sync', 'followed'));

        CREATE TABLE published_collections (
            id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            token TEXT NOT NULL UNIQUE CHECK (length(token) = 40),
            collection BIGINT REFERENCES collections(id) ON DELETE SET NULL,
            published_at BIGINT NOT NULL,
            withdrawn_at BIGINT,
            CHECK (withdrawn_at IS NOT NULL OR collection IS NOT NULL)
        );
        CREATE UNIQUE INDEX published_collections_live ON published_collections (collection) WHERE withdrawn_at IS NULL;
        CREATE INDEX published_collections_collection ON published_collections (collection);

        CREATE TABLE followed_collections (
            id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            user_id BIGINT NOT NULL DEFAULT 1 REFERENCES users(id) ON DELETE CASCADE,
            url TEXT NOT NULL CHECK (url <> ''),
            link BIGINT REFERENCES published_collections(id) ON DELETE CASCADE,
            source_url TEXT CHECK (source_url <> ''),
            private_addresses BIGINT NOT NULL DEFAULT 0 CHECK (private_addresses IN (0, 1)),
            name TEXT NOT NULL,
            description TEXT,
            owner_name TEXT NOT NULL,
            cover_url TEXT,
            items TEXT CHECK (items IS NULL OR json_typeof(items::json) = 'array'),
            version BIGINT NOT NULL DEFAULT 0,
            followed_at BIGINT NOT NULL,
            refreshed_at BIGINT,
            next_refresh BIGINT,
            last_error TEXT,
            withdrawn_at BIGINT,
            CHECK ((link IS NULL) <> (source_url IS NULL)),
            UNIQUE (user_id, link),
            UNIQUE (user_id, source_url)
        );
        CREATE INDEX followed_collections_link ON followed_collections (link);
        CREATE INDEX followed_collections_due ON followed_collections (next_refresh) WHERE source_url IS NOT NULL AND withdrawn_at IS NULL;

        CREATE FUNCTION collections_withdrawn() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            UPDATE published_collections SET withdrawn_at = floor(extract(epoch FROM statement_timestamp()))::bigint
                WHERE collection = OLD.id AND withdrawn_at IS NULL;
            RETURN OLD;
        END $$;
        CREATE TRIGGER collections_withdrawn BEFORE DELETE ON collections
            FOR EACH ROW EXECUTE FUNCTION collections_withdrawn();

        CREATE FUNCTION published_collections_withdrawn() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            UPDATE followed_collections SET withdrawn_at = NEW.withdrawn_at WHERE link = NEW.id AND withdrawn_at IS NULL;
            RETURN NULL;
        END $$;
        CREATE TRIGGER published_collections_withdrawn AFTER UPDATE OF withdrawn_at ON published_collections
            FOR EACH ROW WHEN (OLD.withdrawn_at IS NULL AND NEW.withdrawn_at IS NOT NULL)
            EXECUTE FUNCTION published_collections_withdrawn();

        CREATE FUNCTION collections_followers_updated() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            UPDATE followed_collections SET name = NEW.name, description = NEW.description, cover_url = NEW.cover_url, version = version + 1
                WHERE link IN (SELECT id FROM published_collections WHERE collection = NEW.id AND withdrawn_at IS NULL);
            RETURN NULL;
        END $$;
        CREATE TRIGGER collections_followers_updated AFTER UPDATE OF name, description, cover_url ON collections
            FOR EACH ROW WHEN (OLD.name IS DISTINCT FROM NEW.name OR OLD.description IS DISTINCT FROM NEW.description
                               OR OLD.cover_url IS DISTINCT FROM NEW.cover_url)
            EXECUTE FUNCTION collections_followers_updated();

        CREATE FUNCTION collection_items_followers_touched() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            UPDATE followed_collections SET version = version + 1
                WHERE link IN (SELECT id FROM published_collections
                               WHERE collection = CASE TG_OP WHEN 'DELETE' THEN OLD.collection ELSE NEW.collection END
                                 AND withdrawn_at IS NULL);
            RETURN NULL;
        END $$;
        CREATE TRIGGER collection_items_followers_inserted AFTER INSERT ON collection_items
            FOR EACH ROW EXECUTE FUNCTION collection_items_followers_touched();
        CREATE TRIGGER collection_items_followers_deleted AFTER DELETE ON collection_items
            FOR EACH ROW EXECUTE FUNCTION collection_items_followers_touched();
        CREATE TRIGGER collection_items_followers_renumbered AFTER UPDATE OF position ON collection_items
            FOR EACH ROW WHEN (NEW.position = 1 AND OLD.position <> 1) EXECUTE FUNCTION collection_items_followers_touched();

        CREATE FUNCTION followed_collections_logged() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF TG_OP = 'DELETE' THEN
                PERFORM log_change(OLD.user_id, 'followed', json_build_object('followed_id', OLD.id, 'action', 'removed'));
            ELSIF TG_OP = 'INSERT' THEN
                PERFORM log_change(NEW.user_id, 'followed', json_build_object('followed_id', NEW.id, 'action', 'added'));
            ELSE
                PERFORM log_change(NEW.user_id, 'followed', json_build_object('followed_id', NEW.id, 'action',
                    CASE WHEN OLD.withdrawn_at IS NULL AND NEW.withdrawn_at IS NOT NULL THEN 'withdrawn' ELSE 'updated' END));
            END IF;
            RETURN NULL;
        END $$;
        CREATE TRIGGER followed_collections_logged_inserted AFTER INSERT ON followed_collections
            FOR EACH ROW EXECUTE FUNCTION followed_collections_logged();
        CREATE TRIGGER followed_collections_logged_updated AFTER UPDATE OF version, withdrawn_at ON followed_collections
            FOR EACH ROW WHEN (OLD.version <> NEW.version OR OLD.withdrawn_at IS DISTINCT FROM NEW.withdrawn_at)
            EXECUTE FUNCTION followed_collections_logged();
        CREATE TRIGGER followed_collections_logged_deleted AFTER DELETE ON followed_collections
            FOR EACH ROW EXECUTE FUNCTION followed_collections_logged();

        """#

    /// A change is logged only for a user who exists. Removing a user deletes their rows by
    /// cascade, and the cascade's triggers would log changes for them; here those would wait in
    /// `changes_pending` and be published at COMMIT, after `removeUser` had deleted the user's
    /// rows of the log, so they must not be written at all. (SQLite writes its log at once, in
    /// the same transaction: its `removeUser` deletes them with the rest.)
    static let accountDeletion = #"""
        CREATE OR REPLACE FUNCTION log_change(for_user BIGINT, change_kind TEXT, change_payload json) RETURNS void LANGUAGE sql AS $$
            INSERT INTO changes_pending (user_id, kind, payload)
                SELECT for_user, change_kind, compact_json(change_payload)
                WHERE NOT library_copying() AND EXISTS (SELECT 1 FROM users WHERE id = for_user);
        $$;

        """#
}
