#!/usr/bin/env python3
"""Which tones a recording of a sink's monitor holds, in order, checked against the expected ones.

    scripts/tones.py RECORDING --expect 440,660,440 [--rate 48000] [--channels 2]

RECORDING is raw signed 16-bit little-endian PCM (what `parec --raw --format=s16le` writes: no
header, so a recorder stopped by a signal leaves a readable file). Every 100 ms window of the
first channel is labelled with the expected frequency that carries most of its energy (Goertzel;
at least half of it), as silence, or as another sound (`~480`: its pitch estimated from zero
crossings).
Runs shorter than --min-run seconds (a seek's few milliseconds of transition) are dropped, and
silence between tones (a null sink waking up, a seek's refill) is ignored; what remains must be
the expected tones, in order. Prints one line, `ok: heard 440, 660, 440 Hz in order (…)` or
`wrong: …` saying what was heard instead, and exits 0 or 1 (2 on bad arguments or no file).
Standard library only: the demo and the release smoke test run it on a fresh machine.
"""
import argparse
import array
import math
import sys

WINDOW = 0.1          # seconds: every expected tone has a whole number of periods in it
DECIMATE = 4          # 48 kHz -> 12 kHz (a 4-sample average first): the tones are below 2 kHz
SILENCE_RMS = 0.005   # of full scale (-46 dBFS): quieter windows are silence
DOMINANT = 0.5        # share of a window's energy at one frequency that names it


def samples(path, channels):
    """The first channel of a raw s16le file, as floats in [-1, 1]."""
    data = array.array("h")
    with open(path, "rb") as f:
        raw = f.read()
    raw = raw[: len(raw) - len(raw) % (2 * channels)]
    data.frombytes(raw)
    if sys.byteorder != "little":
        data.byteswap()
    return [s / 32768.0 for s in data[::channels]]


def decimated(x, factor):
    return [sum(x[i : i + factor]) / factor for i in range(0, len(x) - factor + 1, factor)]


def share_at(window, frequency, rate, energy):
    """The share of the window's energy at `frequency` (1.0 for a pure tone on a whole period count)."""
    coefficient = 2 * math.cos(2 * math.pi * frequency / rate)
    s1 = s2 = 0.0
    for v in window:
        s1, s2 = v + coefficient * s1 - s2, s1
    power = s1 * s1 + s2 * s2 - coefficient * s1 * s2
    return 2 * power / (len(window) * energy)


def zero_crossing_pitch(window, rate):
    crossings = sum(1 for a, b in zip(window, window[1:]) if (a < 0) != (b < 0))
    return round(crossings * rate / (2 * len(window)) / 10) * 10


def labels(x, rate, tones):
    """One label per window: an expected frequency, 'silence', or ('other', estimated Hz)."""
    n = int(rate * WINDOW)
    out = []
    for start in range(0, len(x) - n + 1, n):
        w = x[start : start + n]
        energy = sum(v * v for v in w)
        if math.sqrt(energy / n) < SILENCE_RMS:
            out.append("silence")
            continue
        shares = {f: share_at(w, f, rate, energy) for f in tones}
        best = max(shares, key=shares.get)
        out.append(best if shares[best] >= DOMINANT else ("other", zero_crossing_pitch(w, rate)))
    return out


def runs(window_labels, min_windows):
    """[(label, start window, length)] with short runs dropped and equal neighbours merged."""
    collapsed = []
    for i, label in enumerate(window_labels):
        key = label if not isinstance(label, tuple) else "other"
        if collapsed and collapsed[-1][0] == key:
            collapsed[-1][2] += 1
            collapsed[-1][3].append(label)
        else:
            collapsed.append([key, i, 1, [label]])
    kept = []
    for key, start, length, members in collapsed:
        if length < min_windows or key == "silence":
            continue
        if kept and kept[-1][0] == key:
            kept[-1][2] = start + length - kept[-1][1]
            kept[-1][3].extend(members)
        else:
            kept.append([key, start, length, members])
    return kept


def describe(run):
    key, _, _, members = run
    if key != "other":
        return f"{key}"
    pitches = sorted(p for _, p in members)
    return f"~{pitches[len(pitches) // 2]}"   # '~': estimated, not one of the expected tones


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("recording")
    ap.add_argument("--expect", required=True, help="comma-separated frequencies in Hz, in the order they should be heard")
    ap.add_argument("--rate", type=int, default=48000)
    ap.add_argument("--channels", type=int, default=2)
    ap.add_argument("--min-run", type=float, default=0.5, help="seconds a tone must last to count (default 0.5)")
    args = ap.parse_args()
    try:
        expected = [int(f) for f in args.expect.split(",")]
        x = samples(args.recording, args.channels)
    except (ValueError, OSError) as e:
        print(f"tones.py: {e}", file=sys.stderr)
        return 2

    rate = args.rate / DECIMATE
    x = decimated(x, DECIMATE)
    seconds = len(x) / rate
    heard = runs(labels(x, rate, sorted(set(expected))), max(1, round(args.min_run / WINDOW)))
    want = ", ".join(map(str, expected))
    if seconds < WINDOW:
        print(f"wrong: nothing was recorded from the sink's monitor; expected {want} Hz")
        return 1
    if not heard:
        print(f"wrong: no tone reached the sink ({seconds:.1f} s recorded, all of it silence or shorter than {args.min_run} s); expected {want} Hz")
        return 1
    got = ", ".join(describe(r) for r in heard)
    durations = ", ".join(f"{r[2] * WINDOW:.1f}" for r in heard)
    if [r[0] for r in heard] == expected:
        print(f"ok: heard {got} Hz in order ({durations} s)")
        return 0
    print(f"wrong: heard {got} Hz ({durations} s); expected {want} Hz in that order")
    return 1


if __name__ == "__main__":
    sys.exit(main())
