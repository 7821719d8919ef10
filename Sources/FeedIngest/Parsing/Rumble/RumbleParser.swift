/// Rumble channel listing pages (HTML) → `Feed`. Placeholder until the Rumble parser lands.
public enum RumbleParser {
    /// Parses a Rumble channel listing page. Throws `.notAFeed` for HTML that is not one.
    public static func parse(_ bytes: [UInt8], documentURL: String?) throws(FeedError) -> Feed {
        throw .notAFeed("an HTML page without a feed")
    }
}
