/// What an ingest changed.
public struct IngestResult: Sendable, Equatable {
    /// Items the library did not have.
    public var new: Int
    /// Known items whose stored fields changed (title, views, duration, thumbnail…).
    public var updated: Int
    public init(new: Int, updated: Int) { self.new = new; self.updated = updated }
}
