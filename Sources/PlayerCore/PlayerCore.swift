import CFFmpeg
import CPulse
import NowPlaying
