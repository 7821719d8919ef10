#!/usr/bin/env bash
# Builds the FFmpeg the player links into .build/ffmpeg: Debian 12's own FFmpeg source
# (`apt-get source ffmpeg`, security updates included), configured with only what feedctl plays:
# the demuxers, decoders and parsers of MP3, AAC (ADTS, MP4/M4A), Ogg/WebM Opus and Vorbis, FLAC
# and WAV; the file/http/https/tls/tcp protocols; libswresample; libavfilter's atempo.
#
# Why: Debian's libavcodec and libavformat link ~150 libraries (x265, rav1e, librsvg, openmpt,
# zvbi…) that an audio player never uses, yet loading them made ~21 MB of every player process
# resident (bench/playback: the engine 37 -> 16 MB). It is also less code facing untrusted media.
# It is the same FFmpeg version and ABI as Debian's packages, so the build links either: if the
# source cannot be fetched or built, this says so and the build uses Debian's FFmpeg (more memory).
# Idempotent: does nothing when .build/ffmpeg was built with this configuration (~30 s otherwise).
set -euo pipefail
cd "$(dirname "$0")/.."
prefix=$PWD/.build/ffmpeg
config=(
  --disable-everything --disable-programs --disable-doc --disable-avdevice --disable-swscale
  --disable-postproc --enable-shared --disable-static
  --enable-demuxer=mp3,aac,mov,ogg,matroska,flac,wav
  --enable-decoder=mp3float,mp3,aac,opus,vorbis,flac,pcm_s16le,pcm_s16be,pcm_s24le,pcm_s32le,pcm_f32le,pcm_f64le,pcm_u8,pcm_alaw,pcm_mulaw
  --enable-parser=mpegaudio,aac,opus,vorbis,flac
  --enable-protocol=file,http,https,tls,tcp --enable-gnutls
  --enable-filter=abuffer,abuffersink,aformat,aresample,atempo
)
stamp=$(printf '%s\n' "${config[@]}")
if [[ -f $prefix/config.txt && $(cat "$prefix/config.txt") == "$stamp" ]] \
   && [[ -f $prefix/lib/pkgconfig/libavformat.pc ]]; then
  exit 0
fi

fallback() { echo "build-ffmpeg.sh: $*; the build will use Debian's FFmpeg (same ABI, ~21 MB more per player)" >&2; exit 0; }
work=$PWD/.build/ffmpeg-src
rm -rf "$work" "$prefix"
mkdir -p "$work/apt/lists/partial" "$work/apt/cache/archives/partial"

# Debian's source packages through a private apt state: the system's apt configuration is untouched.
cat >"$work/apt/sources.list" <<'EOF'
deb-src http://deb.debian.org/debian bookworm main
deb-src http://deb.debian.org/debian bookworm-updates main
deb-src http://deb.debian.org/debian-security bookworm-security main
EOF
apt=(apt-get -q -o "Dir::Etc::sourcelist=$work/apt/sources.list" -o Dir::Etc::sourceparts=-
     -o "Dir::State::Lists=$work/apt/lists" -o "Dir::Cache=$work/apt/cache")
[[ $(id -u) -eq 0 ]] && apt+=(-o APT::Sandbox::User=root)  # root: write the files as root, no _apt
echo "== fetching Debian's FFmpeg source" >&2
"${apt[@]}" update >"$work/apt.log" 2>&1 || fallback "apt-get update for the source index failed (see $work/apt.log)"
(cd "$work" && "${apt[@]}" source ffmpeg >>"$work/apt.log" 2>&1) || fallback "apt-get source ffmpeg failed (see $work/apt.log)"
src=$(find "$work" -mindepth 1 -maxdepth 1 -type d -name 'ffmpeg-*' | head -1)
[[ -n $src ]] || fallback "no unpacked source in $work"

echo "== building a minimal FFmpeg ($(basename "$src")) into $prefix" >&2
(cd "$src" && ./configure --prefix="$prefix" "${config[@]}" >"$work/configure.log" 2>&1) \
  || fallback "configure failed (see $work/configure.log)"
(cd "$src" && make -j"$(nproc)" >"$work/make.log" 2>&1 && make install >>"$work/make.log" 2>&1) \
  || { rm -rf "$prefix"; fallback "make failed (see $work/make.log)"; }
echo "$stamp" >"$prefix/config.txt"
rm -rf "$work"
echo "== FFmpeg ready in $prefix" >&2
