import FeedModel
import FeedParsing
import LibraryStore

/// Subscriptions to and from OPML (newsboat, gPodder, AntennaPod exchange them so).
public enum OPMLSubscriptions {
    /// Every channel as an OPML outline: its name, feed URL, its page when that differs, and its
    /// platform (read back by `newChannels`).
    public static func feeds(of store: any ChannelStore) async throws(LibraryError) -> [OPMLFeed] {
        try await store.allChannels().map { channel in
            OPMLFeed(title: channel.name.isEmpty ? channel.feedURL : channel.name, xmlURL: channel.feedURL,
                     htmlURL: channel.sourceURL == channel.feedURL ? nil : channel.sourceURL, platform: channel.platform)
        }
    }

    /// The library's subscriptions as an OPML 2.0 document.
    public static func export(_ store: any ChannelStore, now: Int64) async throws(LibraryError) -> String {
        OPML.export(try await feeds(of: store), dateCreated: now)
    }

    /// The channels an import subscribes: the outlines whose feed the library does not have yet,
    /// named by their outline until their feed names them, of the platform the outline says
    /// (feedctl's export), else the one their feed URL's host suggests, subscribed with `reach`.
    /// `known` counts the others.
    public static func newChannels(_ feeds: [OPMLFeed], in store: any ChannelStore, reach: AddressReach) async throws(LibraryError)
        -> (channels: [NewChannel], known: Int) {
        // The user's feeds read once, not looked up one by one (20,000 round trips to PostgreSQL
        // for a large file): the same exact match on the feed URL.
        let followed = Set(try await store.allChannels().map(\.feedURL))
        var channels: [NewChannel] = []
        var known = 0
        for feed in feeds {
            if followed.contains(feed.xmlURL) { known += 1; continue }
            channels.append(NewChannel(platform: feed.platform ?? Platform(guessingFrom: feed.xmlURL), sourceURL: feed.htmlURL ?? feed.xmlURL,
                                       feedURL: feed.xmlURL, name: feed.title, reach: reach))
        }
        return (channels, known)
    }
}
