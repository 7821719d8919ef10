/// A device a user syncs with through the gpodder.net API (a phone's AntennaPod, a desktop's
/// gPodder): only a name for it. Subscriptions and episode actions are the user's whatever the
/// device, as Nextcloud's gpoddersync keeps them, so a device carries no state of its own.
public struct SyncDevice: Sendable, Equatable {
    /// The id the client chose (`[A-Za-z0-9._-]`, as gpodder.net allows).
    public var id: String
    public var caption: String
    public var type: SyncDeviceType
    public var updatedAt: Int64

    public init(id: String, caption: String, type: SyncDeviceType, updatedAt: Int64) {
        self.id = id; self.caption = caption; self.type = type; self.updatedAt = updatedAt
    }
}

/// gpodder.net's device types.
public enum SyncDeviceType: String, Sendable, CaseIterable {
    case desktop, laptop, mobile, server, other
}

/// What changed in a user's subscriptions after a point of the sync clock (`since`), and where
/// the clock stands now (`timestamp`: the next call's `since`). URLs are the feeds polled.
public struct SubscriptionChanges: Sendable, Equatable {
    public var added: [String]
    public var removed: [String]
    public var timestamp: Int64

    public init(added: [String], removed: [String], timestamp: Int64) {
        self.added = added; self.removed = removed; self.timestamp = timestamp
    }
}
