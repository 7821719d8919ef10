#ifndef FEEDCTL_CMALLOC_SHIM_H
#define FEEDCTL_CMALLOC_SHIM_H
// glibc's malloc tuning (`mallopt`), which Swift's Glibc module does not bring in.
#include <malloc.h>
#endif
