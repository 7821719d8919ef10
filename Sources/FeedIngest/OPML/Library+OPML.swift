extension Library {
    /// Every channel as an OPML outline: its name, feed URL, and its page when that differs.
    public func opmlFeeds() throws(LibraryError) -> [OPMLFeed] {
        try allChannels().map { channel in
            OPMLFeed(title: channel.name.isEmpty ? channel.feedURL : channel.name, xmlURL: channel.feedURL,
                     htmlURL: channel.sourceURL == channel.feedURL ? nil : channel.sourceURL)
        }
    }

    /// The library's subscriptions as an OPML 2.0 document.
    public func exportOPML(now: Int64) throws(LibraryError) -> String {
        OPML.export(try opmlFeeds(), dateCreated: now)
    }
}
