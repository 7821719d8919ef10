/// The release both executables report (`feedctl --version`, `feedctl-daemon --version`); raised
/// with each tagged release.
public enum FeedctlVersion {
    public static let current = "0.13.0"
}
