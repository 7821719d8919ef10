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
# Built once per machine and configuration: into ${XDG_CACHE_HOME:-~/.cache}/feedctl/ffmpeg-KEY
# (KEY: this configuration and the installed libavformat-dev's version, so a Debian security update
# rebuilds it), which .build/ffmpeg links to: the path the build's run path names (Package.swift)
# and the other scripts read. Idempotent: a few milliseconds when built; otherwise ~2 min on 2
# cores (fetching the source ~20 s, configure ~30 s, make ~1 min; measured 1 min 51 s).
set -euo pipefail
cd "$(dirname "$0")/.."
config=(
  --disable-everything --disable-programs --disable-doc --disable-avdevice --disable-swscale
  --disable-postproc --enable-shared --disable-static
  --enable-demuxer=mp3,aac,mov,ogg,matroska,flac,wav
  --enable-decoder=mp3float,mp3,aac,opus,vorbis,flac,pcm_s16le,pcm_s16be,pcm_s24le,pcm_s32le,pcm_f32le,pcm_f64le,pcm_u8,pcm_alaw,pcm_mulaw
  --enable-parser=mpegaudio,aac,opus,vorbis,flac
  --enable-protocol=file,http,https,tls,tcp --enable-gnutls
  --enable-filter=abuffer,abuffersink,aformat,aresample,atempo
)
stamp=$(printf '%s\n' "${config[@]}" "libavformat-dev $(dpkg-query -W -f='${Version}' libavformat-dev 2>/dev/null)")
cache=${XDG_CACHE_HOME:-$HOME/.cache}/feedctl
prefix=$cache/ffmpeg-$(sha256sum <<<"$stamp" | cut -c1-12)
link=.build/ffmpeg
built() { [[ -f $prefix/config.txt && $(cat "$prefix/config.txt") == "$stamp" && -f $prefix/lib/pkgconfig/libavformat.pc ]]; }
use() {  # .build/ffmpeg -> the cached build (replacing a build made in .build by older scripts)
  mkdir -p .build
  [[ -L $link || ! -e $link ]] || rm -rf "$link"
  ln -sfn "$prefix" "$link"
}
if built; then use; exit 0; fi

mkdir -p "$cache"
exec {lock}>"$prefix.lock"
flock "$lock"   # another clone building the same FFmpeg: wait for it, then use it
if built; then use; exit 0; fi
fallback() {
  [[ -L $link ]] && rm -f "$link"
  echo "build-ffmpeg.sh: $*; the build will use Debian's FFmpeg (same ABI, ~21 MB more per player)" >&2
  exit 0
}
work=$prefix.src
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
use
echo "== FFmpeg ready in $prefix (.build/ffmpeg)" >&2
