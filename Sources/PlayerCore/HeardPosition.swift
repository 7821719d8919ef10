/// The furthest position reported in the position clock's current epoch (`PlayerMachine.clockEpoch`:
/// a new item, a seek or a stop starts one). PulseAudio's latency estimate moves both ways by a few
/// milliseconds (more under load), so the clock's `writtenEnd - latency` can step back while the
/// audio plays on; what the listener heard never does, so neither does the position reported.
struct HeardPosition: Equatable {
    private(set) var epoch: UInt64 = 0
    private(set) var position: Double = 0

    /// `position` as computed now, or the furthest one already reported in the same epoch.
    mutating func report(_ computed: Double, epoch: UInt64) -> Double {
        if epoch == self.epoch, computed < position { return position }
        (self.epoch, position) = (epoch, computed)
        return computed
    }
}
