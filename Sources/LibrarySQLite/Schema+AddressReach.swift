import GRDB

extension Schema {
    /// `AddressReach` (issue 26): `subscriptions.private_addresses` keeps whether its user was
    /// allowed loopback, private and link-local addresses when they subscribed (the owner from
    /// the CLI, or a server started with `--allow-private-feeds`); `channels.private_addresses`
    /// is 1 only while every subscription to the channel is, kept so by triggers, and every
    /// poller reads it with the channel. Existing subscriptions are the owner's CLI ones or came
    /// through a server whose flag nobody recorded: the owner's keep private addresses, the
    /// others' lose them (a server user's feed on a private address needs `--allow-private-feeds`
    /// and subscribing again).
    static func v18AddressReach(_ db: Database) throws {
        let everyFollowerMay = { (channel: String) in
            "NOT EXISTS (SELECT 1 FROM subscriptions WHERE channel_id = \(channel) AND private_addresses = 0)"
        }
        try db.execute(sql: """
            ALTER TABLE subscriptions ADD COLUMN private_addresses INTEGER NOT NULL DEFAULT 0 CHECK (private_addresses IN (0, 1));
            UPDATE subscriptions SET private_addresses = 1 WHERE user_id = \(ownerID);
            ALTER TABLE channels ADD COLUMN private_addresses INTEGER NOT NULL DEFAULT 0 CHECK (private_addresses IN (0, 1));
            UPDATE channels SET private_addresses = \(everyFollowerMay("channels.id"));
            CREATE TRIGGER subscriptions_reach_added AFTER INSERT ON subscriptions BEGIN
                UPDATE channels SET private_addresses = \(everyFollowerMay("NEW.channel_id")) WHERE id = NEW.channel_id;
            END;
            CREATE TRIGGER subscriptions_reach_removed AFTER DELETE ON subscriptions BEGIN
                UPDATE channels SET private_addresses = \(everyFollowerMay("OLD.channel_id")) WHERE id = OLD.channel_id;
            END;
            CREATE TRIGGER subscriptions_reach_changed AFTER UPDATE OF private_addresses ON subscriptions BEGIN
                UPDATE channels SET private_addresses = \(everyFollowerMay("NEW.channel_id")) WHERE id = NEW.channel_id;
            END;
            """)
    }
}
