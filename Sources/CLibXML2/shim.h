#ifndef FEEDCTL_CLIBXML2_SHIM_H
#define FEEDCTL_CLIBXML2_SHIM_H
// Debian's libxml2 headers pull in the system ICU, whose UErrorCode clashes with the ICU
// that Foundation bundles ("different definitions in different modules") on clean builds
// only. Undefining LIBXML_ICU_ENABLED before the other headers avoids it.
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/SAX2.h>
#include <libxml/HTMLparser.h>
#include <libxml/HTMLtree.h>
#include <libxml/entities.h>
#include <libxml/xmlerror.h>
#include <libxml/encoding.h>
#include <libxml/tree.h>
#include <libxml/uri.h>

// xmlFree is a global function pointer; Swift 6 rejects it as shared mutable state.
static inline void feedctl_xmlFree(void *p) { xmlFree(p); }

// libxml2 prints a few errors (e.g. "xmlParseChunk: encoder error") through its generic
// handler, which is variadic and so cannot be written in Swift: a silent one, set per thread.
static inline void feedctl_xmlSilentError(void *ctx, const char *msg, ...) { (void)ctx; (void)msg; }
static inline void feedctl_xmlSilenceGenericErrors(void) { xmlSetGenericErrorFunc(NULL, feedctl_xmlSilentError); }
#endif
