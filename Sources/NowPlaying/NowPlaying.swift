public enum NowPlayingPlaceholder {}
