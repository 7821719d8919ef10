#ifndef FEEDCTL_CPULSE_SHIM_H
#define FEEDCTL_CPULSE_SHIM_H
#include <pulse/pulseaudio.h>
#endif
