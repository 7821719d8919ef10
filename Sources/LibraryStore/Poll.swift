import FeedModel

/// One channel's poll as the ingest pipeline hands it to the store: whom it is for, and what the
/// fetch came to. The store applies it with the channel's bookkeeping in one transaction, so a
/// crash leaves either all of it or none (never items without their ETag).
public struct Poll: Sendable {
    public enum Subject: Sendable, Equatable {
        /// A channel the library has.
        case channel(id: Int64)
        /// A channel being subscribed (`channel add`, OPML import): created, or, when its feed URL
        /// is already subscribed, updated (platform, source URL, name when given, image when given).
        case subscription(NewChannel)
    }

    public enum Outcome: Sendable {
        /// Nothing was fetched (an OPML import with `--no-sync`): only the subscription is recorded.
        case notFetched
        /// A 304, or a 200 with the body of the last poll: nothing to parse or ingest.
        case unchanged(Validators)
        /// A feed to store: its items are merged, its title and image name the channel.
        case changed(Validators, Feed)
        /// The fetch or the parse failed: the one-line error is recorded and the channel backs off
        /// (`SyncPolicy.backoff`); its items are untouched.
        case failed(message: String, retryAfter: Int64?)
    }

    public var subject: Subject
    public var outcome: Outcome
    /// Seconds until a healthy channel is polled again; failures back off from it.
    public var pollInterval: Int64

    public init(subject: Subject, outcome: Outcome, pollInterval: Int64 = SyncPolicy.defaultPollInterval) {
        self.subject = subject; self.outcome = outcome; self.pollInterval = pollInterval
    }

    /// A poll of a channel the library has.
    public init(_ poll: ChannelPoll) {
        self.init(subject: .channel(id: poll.channelID), outcome: poll.outcome, pollInterval: poll.pollInterval)
    }
}

/// A poll of a channel the library has, as a poller that acts for no user hands it to the
/// store (`PollStore.apply`): subscribing is a user's (`SyncStore.apply`).
public struct ChannelPoll: Sendable {
    public var channelID: Int64
    public var outcome: Poll.Outcome
    /// Seconds until a healthy channel is polled again; failures back off from it.
    public var pollInterval: Int64

    public init(channelID: Int64, outcome: Poll.Outcome, pollInterval: Int64 = SyncPolicy.defaultPollInterval) {
        self.channelID = channelID; self.outcome = outcome; self.pollInterval = pollInterval
    }
}

/// What a response said about the next poll.
public struct Validators: Sendable, Equatable {
    public var etag: String?
    public var lastModified: String?
    /// Nil for a 304 (the stored hash stays).
    public var bodyHash: String?
    /// The feed's new URL, after permanent redirects only.
    public var movedTo: String?

    public init(etag: String? = nil, lastModified: String? = nil, bodyHash: String? = nil, movedTo: String? = nil) {
        self.etag = etag; self.lastModified = lastModified; self.bodyHash = bodyHash; self.movedTo = movedTo
    }
}

/// A channel being subscribed.
public struct NewChannel: Sendable, Equatable {
    public var platform: Platform
    /// The URL the person subscribed with.
    public var sourceURL: String
    /// The URL that is polled.
    public var feedURL: String
    /// Its name until its feed names it (`ChannelName`); empty keeps an existing channel's name.
    public var name: String
    public var image: String?
    /// What the subscribing user may make the library fetch (`AddressReach`): kept with their
    /// subscription. A feed already subscribed keeps the subscription it has.
    public var reach: AddressReach

    public init(platform: Platform, sourceURL: String, feedURL: String, name: String, image: String? = nil, reach: AddressReach) {
        self.platform = platform; self.sourceURL = sourceURL; self.feedURL = feedURL; self.name = name; self.image = image
        self.reach = reach
    }
}

/// What applying one poll did.
public struct PollApplied: Sendable, Equatable {
    public var channelID: Int64
    /// Items stored (zero unless the outcome was `changed`).
    public var ingest: IngestResult

    public init(channelID: Int64, ingest: IngestResult) {
        self.channelID = channelID; self.ingest = ingest
    }
}
