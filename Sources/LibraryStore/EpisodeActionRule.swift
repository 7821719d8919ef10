import FeedModel

/// How a phone's gpodder actions meet the library (issue 15), decided here for every store: the
/// store finds the candidates (a few rows each), these functions choose. `SyncRule` has the
/// protocol's bounds; `WatchUpdate` and `WatchRule` what a position does.
public enum EpisodeActionRule {
    /// One of the user's channels an action's podcast URL may name: polled at it, or first
    /// added as it (a page URL that became a feed).
    public struct ChannelCandidate: Sendable, Equatable {
        public var id: Int64
        public var feedURL: String
        public var sourceURL: String
        public init(id: Int64, feedURL: String, sourceURL: String) {
            self.id = id; self.feedURL = feedURL; self.sourceURL = sourceURL
        }
    }

    /// The channel an action's `podcast` URL means among the user's channels polled at it or
    /// added as it: the one polled at it, else the first added as it (the lowest id); nil when
    /// none.
    public static func channel(podcast: String, among candidates: [ChannelCandidate]) -> Int64? {
        if let polled = candidates.first(where: { $0.feedURL == podcast }) { return polled.id }
        return candidates.filter { $0.sourceURL == podcast }.map(\.id).min()
    }

    /// An item of that channel that an action may mean: its id in the library, the parser's item
    /// id (a guid, else the media URL or link), its guid and its media URL.
    public struct ItemCandidate: Sendable, Equatable {
        public var id: Int64
        public var itemID: String
        public var guid: String?
        public var mediaURL: String?
        public init(id: Int64, itemID: String, guid: String?, mediaURL: String?) {
            self.id = id; self.itemID = itemID; self.guid = guid; self.mediaURL = mediaURL
        }
    }

    /// Candidates a store hands `item` of each kind at most: the channel's items whose parser's
    /// id is the action's guid, those whose guid is, those whose media URL is its episode URL.
    /// Two of a kind are enough to know there is not one.
    public static let candidatesPerKind = 2

    /// The item an action means among the channel's candidates: the one whose parser's id is the
    /// action's guid, else the one whose guid is, else the one whose media URL is the action's
    /// episode URL. Two items that match a step alike are never guessed between (the next step
    /// decides, else none): two episodes sharing a media URL stay apart.
    public static func item(for action: EpisodeAction, among candidates: [ItemCandidate]) -> Int64? {
        func one(_ matches: [ItemCandidate]) -> Int64? { Set(matches.map(\.id)).count == 1 ? matches[0].id : nil }
        if let guid = action.guid {
            if let id = one(candidates.filter({ $0.itemID == guid })) { return id }
            if let id = one(candidates.filter({ $0.guid == guid })) { return id }
        }
        return one(candidates.filter { $0.mediaURL == action.episode })
    }

    /// An upload's actions in the order they are applied: oldest first by the phone's clock,
    /// ties in the order given, so that within one upload too the last action wins.
    public static func inOrder(_ actions: [EpisodeAction]) -> [EpisodeAction] {
        actions.enumerated().sorted { ($0.element.timestamp, $0.offset) < ($1.element.timestamp, $1.offset) }.map(\.element)
    }

    /// Last writer wins, feedctl's own changes included: an action that happened at `actionTime`
    /// (the phone's clock) changes a watch state last changed at `stateChangedAt` (nil: none yet)
    /// unless that change came later.
    public static func wins(actionTime: Int64, over stateChangedAt: Int64?) -> Bool {
        guard let stateChangedAt else { return true }
        return stateChangedAt <= actionTime
    }

    /// What an action does to its item's watch state: `play` is a position (`WatchRule` counts it
    /// heard against the action's `total`, else the item's duration), `new` a mark as not
    /// watched; the others (and a play without a position: -1) do nothing.
    public static func update(for action: EpisodeAction) -> WatchUpdate? {
        switch action.kind {
        case .play:
            guard let position = action.position, position >= 0 else { return nil }
            return .position(seconds: position, length: action.total.map(Double.init))
        case .new:
            return .mark(watched: false)
        case .download, .delete, .flattr:
            return nil
        }
    }

    /// An item's watch state, changed in feedctl, as the action a phone would have sent: in
    /// progress is `play` at its position, heard is `play` at its end (only when its length is
    /// known: a position says nothing else), untouched or reset is `new`. An item with neither
    /// media nor page URL has no episode URL to name (nil).
    public static func action(podcast: String, mediaURL: String?, pageURL: String?, guid: String?, duration: Int?,
                              watched: Bool, progress: Int, changedAt: Int64) -> EpisodeAction? {
        guard let episode = mediaURL ?? pageURL else { return nil }
        var action = EpisodeAction(podcast: podcast, episode: episode, guid: guid, kind: .play, timestamp: changedAt)
        if watched {
            guard let duration, duration > 0 else { return nil }
            (action.position, action.total) = (duration, duration)
        } else if progress > 0 {
            (action.position, action.total) = (progress, duration)
        } else {
            action.kind = .new
        }
        return action
    }

    /// The latest action (by its timestamp; the later in `actions` on a tie) of each episode, an
    /// episode being its podcast, media URL and guid: same URL, other guid, other episode. In
    /// the order they came.
    public static func latestPerEpisode(_ actions: [EpisodeAction]) -> [EpisodeAction] {
        struct Key: Hashable { var podcast: String, episode: String, guid: String? }
        var latest: [Key: Int] = [:]
        for (index, action) in actions.enumerated() {
            let key = Key(podcast: action.podcast, episode: action.episode, guid: action.guid)
            if let kept = latest[key], actions[kept].timestamp > action.timestamp { continue }
            latest[key] = index
        }
        return latest.values.sorted().map { actions[$0] }
    }
}
