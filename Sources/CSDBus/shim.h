// sd-bus (libsystemd) for Swift: the MPRIS2 object's vtables and three trampolines.
//
// Why C: sd-bus vtables are arrays of unions filled by macros (SD_BUS_METHOD, SD_BUS_PROPERTY),
// which Swift cannot import; and the variadic helpers (sd_bus_reply_method_return(m, NULL), ...)
// are unavailable in Swift. So the vtables are static data here, and every entry points at one
// of three trampolines that forward to Swift functions through `CSDBusHandlers` (the object's
// userdata). Everything runs on the thread that calls sd_bus_process.
#ifndef CSDBUS_SHIM_H
#define CSDBUS_SHIM_H

#include <systemd/sd-bus.h>
#include <sys/eventfd.h>
#include <poll.h>

/// Swift's side of an exported object. Each function returns >= 0 on success or a negative errno
/// (and may fill `error`). `call` returns 1 once it has replied or will reply later.
typedef struct CSDBusHandlers {
    int (*get)(void *context, const char *interface, const char *property, sd_bus_message *reply, sd_bus_error *error);
    int (*set)(void *context, const char *interface, const char *property, sd_bus_message *value, sd_bus_error *error);
    int (*call)(void *context, sd_bus_message *call, sd_bus_error *error);
    void *context;
} CSDBusHandlers;

static int csdbus_get_trampoline(sd_bus *bus, const char *path, const char *interface, const char *property,
                                 sd_bus_message *reply, void *userdata, sd_bus_error *error) {
    (void)bus; (void)path;
    CSDBusHandlers *h = (CSDBusHandlers *)userdata;
    return h->get(h->context, interface, property, reply, error);
}

static int csdbus_set_trampoline(sd_bus *bus, const char *path, const char *interface, const char *property,
                                 sd_bus_message *value, void *userdata, sd_bus_error *error) {
    (void)bus; (void)path;
    CSDBusHandlers *h = (CSDBusHandlers *)userdata;
    return h->set(h->context, interface, property, value, error);
}

static int csdbus_call_trampoline(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    CSDBusHandlers *h = (CSDBusHandlers *)userdata;
    return h->call(h->context, m, error);
}

#define CSDBUS_RO(name, sig, flags) SD_BUS_PROPERTY(name, sig, csdbus_get_trampoline, 0, flags)
#define CSDBUS_RW(name, sig, flags) SD_BUS_WRITABLE_PROPERTY(name, sig, csdbus_get_trampoline, csdbus_set_trampoline, 0, flags)
#define CSDBUS_CHANGES SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE
#define CSDBUS_METHOD(name, in) SD_BUS_METHOD(name, in, "", csdbus_call_trampoline, SD_BUS_VTABLE_UNPRIVILEGED)

/// org.mpris.MediaPlayer2 (MPRIS 2.2).
static inline const sd_bus_vtable *csdbus_mpris_root_vtable(void) {
    static const sd_bus_vtable vtable[] = {
        SD_BUS_VTABLE_START(0),
        CSDBUS_METHOD("Raise", ""),
        CSDBUS_METHOD("Quit", ""),
        CSDBUS_RO("CanQuit", "b", SD_BUS_VTABLE_PROPERTY_CONST),
        CSDBUS_RO("CanRaise", "b", SD_BUS_VTABLE_PROPERTY_CONST),
        CSDBUS_RO("HasTrackList", "b", SD_BUS_VTABLE_PROPERTY_CONST),
        CSDBUS_RO("Identity", "s", SD_BUS_VTABLE_PROPERTY_CONST),
        CSDBUS_RO("SupportedUriSchemes", "as", SD_BUS_VTABLE_PROPERTY_CONST),
        CSDBUS_RO("SupportedMimeTypes", "as", SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_VTABLE_END
    };
    return vtable;
}

/// org.mpris.MediaPlayer2.Player (MPRIS 2.2). Position changes continuously, so it never
/// emits PropertiesChanged (clients read it, and listen for Seeked); CanControl never changes.
static inline const sd_bus_vtable *csdbus_mpris_player_vtable(void) {
    static const sd_bus_vtable vtable[] = {
        SD_BUS_VTABLE_START(0),
        CSDBUS_METHOD("Next", ""),
        CSDBUS_METHOD("Previous", ""),
        CSDBUS_METHOD("Pause", ""),
        CSDBUS_METHOD("PlayPause", ""),
        CSDBUS_METHOD("Stop", ""),
        CSDBUS_METHOD("Play", ""),
        CSDBUS_METHOD("Seek", "x"),
        CSDBUS_METHOD("SetPosition", "ox"),
        CSDBUS_METHOD("OpenUri", "s"),
        SD_BUS_SIGNAL("Seeked", "x", 0),
        CSDBUS_RO("PlaybackStatus", "s", CSDBUS_CHANGES),
        CSDBUS_RW("Rate", "d", CSDBUS_CHANGES),
        CSDBUS_RO("Metadata", "a{sv}", CSDBUS_CHANGES),
        CSDBUS_RW("Volume", "d", CSDBUS_CHANGES),
        CSDBUS_RO("Position", "x", 0),
        CSDBUS_RO("MinimumRate", "d", CSDBUS_CHANGES),
        CSDBUS_RO("MaximumRate", "d", CSDBUS_CHANGES),
        CSDBUS_RO("CanGoNext", "b", CSDBUS_CHANGES),
        CSDBUS_RO("CanGoPrevious", "b", CSDBUS_CHANGES),
        CSDBUS_RO("CanPlay", "b", CSDBUS_CHANGES),
        CSDBUS_RO("CanPause", "b", CSDBUS_CHANGES),
        CSDBUS_RO("CanSeek", "b", CSDBUS_CHANGES),
        CSDBUS_RO("CanControl", "b", SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_VTABLE_END
    };
    return vtable;
}

/// sd_bus_reply_method_return(call, NULL): an empty reply (the variadic form is unavailable in Swift).
static inline int csdbus_reply_empty(sd_bus_message *call) {
    return sd_bus_reply_method_return(call, NULL);
}

/// SD_BUS_ERROR_NULL, which is a macro.
static inline sd_bus_error csdbus_error_null(void) {
    sd_bus_error e = SD_BUS_ERROR_NULL;
    return e;
}

#endif
