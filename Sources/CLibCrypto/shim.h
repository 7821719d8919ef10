#ifndef FEEDCTL_CLIBCRYPTO_SHIM_H
#define FEEDCTL_CLIBCRYPTO_SHIM_H
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>

// OpenSSL's libcrypto for the two digests feedctl needs (SHA-256 of session tokens, SHA-1 of
// Podcast Index's request signature) and for checking a signature with a public key (an OpenID
// provider's ID tokens: RS256, ES256). It is on every machine feedctl runs on (libcurl4-openssl
// depends on it). Loaded with dlopen on first use, like libcurl, so a command that never hashes
// does not map it at start-up; its three functions are declared here (EVP_Digest's documented
// signature, OpenSSL 1.1 and 3) rather than taken from <openssl/evp.h>, so building needs no
// libssl-dev. Loaded once and never unloaded. The verifying functions are a second set
// (`can_verify`): a libcrypto without them still hashes.
struct feedctl_crypto_api {
    int loaded;
    const void *(*sha1)(void);
    const void *(*sha256)(void);
    int (*digest)(const void *data, size_t count, unsigned char *md, unsigned int *size, const void *type, void *engine);
    int can_verify;
    void *(*d2i_pubkey)(void **key, const unsigned char **bytes, long length);
    void (*pkey_free)(void *key);
    void *(*md_ctx_new)(void);
    void (*md_ctx_free)(void *ctx);
    int (*digest_verify_init)(void *ctx, void **pctx, const void *type, void *engine, void *key);
    int (*digest_verify)(void *ctx, const unsigned char *signature, size_t signature_count, const unsigned char *data, size_t count);
    void (*clear_errors)(void);
};

// Function-local statics: Swift's importer emits the inline functions it calls, with their
// statics, but not file-scope variables of a header.
static inline struct feedctl_crypto_api *feedctl_crypto_slot(void) {
    static struct feedctl_crypto_api api;
    return &api;
}

static inline void feedctl_crypto_load(void) {
    void *h = dlopen("libcrypto.so.3", RTLD_NOW | RTLD_LOCAL);
    if (!h) h = dlopen("libcrypto.so", RTLD_NOW | RTLD_LOCAL);
    if (!h) return;
    struct feedctl_crypto_api *t = feedctl_crypto_slot();
    if (!(*(void **)&t->sha1 = dlsym(h, "EVP_sha1"))) return;
    if (!(*(void **)&t->sha256 = dlsym(h, "EVP_sha256"))) return;
    if (!(*(void **)&t->digest = dlsym(h, "EVP_Digest"))) return;
    t->loaded = 1;
    if (!(*(void **)&t->d2i_pubkey = dlsym(h, "d2i_PUBKEY"))) return;
    if (!(*(void **)&t->pkey_free = dlsym(h, "EVP_PKEY_free"))) return;
    if (!(*(void **)&t->md_ctx_new = dlsym(h, "EVP_MD_CTX_new"))) return;
    if (!(*(void **)&t->md_ctx_free = dlsym(h, "EVP_MD_CTX_free"))) return;
    if (!(*(void **)&t->digest_verify_init = dlsym(h, "EVP_DigestVerifyInit"))) return;
    if (!(*(void **)&t->digest_verify = dlsym(h, "EVP_DigestVerify"))) return;
    if (!(*(void **)&t->clear_errors = dlsym(h, "ERR_clear_error"))) return;
    t->can_verify = 1;
}

static inline struct feedctl_crypto_api *feedctl_crypto(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, feedctl_crypto_load);
    return feedctl_crypto_slot();
}

#define FEEDCTL_DIGEST_SHA1 1
#define FEEDCTL_DIGEST_SHA256 2
#define FEEDCTL_DIGEST_MAX 64

// The digest of `count` bytes at `data` into `out` (FEEDCTL_DIGEST_MAX bytes); returns its
// length, or 0 if libcrypto could not be loaded or the digest failed.
static inline unsigned int feedctl_digest(int algorithm, const void *data, size_t count, unsigned char *out) {
    struct feedctl_crypto_api *t = feedctl_crypto();
    if (!t->loaded) return 0;
    const void *type = algorithm == FEEDCTL_DIGEST_SHA1 ? t->sha1() : t->sha256();
    unsigned int size = 0;
    if (!type || t->digest(data, count, out, &size, type, NULL) != 1) return 0;
    return size;
}

#define FEEDCTL_VERIFY_VALID 1
#define FEEDCTL_VERIFY_INVALID 0
#define FEEDCTL_VERIFY_BAD_KEY (-1)
#define FEEDCTL_VERIFY_UNAVAILABLE (-2)

// Whether `signature` is the signature of `data` with SHA-256 by the public key `key` (a DER
// SubjectPublicKeyInfo: RSA, PKCS #1 v1.5 padding; or EC, the signature DER's ECDSA-Sig-Value).
// The key is read, used and freed here, so no libcrypto handle outlives the call; libcrypto's
// error queue is emptied after a failure (it is per thread, and would grow).
static inline int feedctl_verify_sha256(const unsigned char *key, size_t key_count,
                                        const unsigned char *signature, size_t signature_count,
                                        const unsigned char *data, size_t count) {
    struct feedctl_crypto_api *t = feedctl_crypto();
    if (!t->loaded || !t->can_verify) return FEEDCTL_VERIFY_UNAVAILABLE;
    const unsigned char *cursor = key;
    void *pkey = t->d2i_pubkey(NULL, &cursor, (long)key_count);
    if (!pkey) { t->clear_errors(); return FEEDCTL_VERIFY_BAD_KEY; }
    void *ctx = t->md_ctx_new();
    int result = FEEDCTL_VERIFY_UNAVAILABLE;
    if (ctx) {
        if (t->digest_verify_init(ctx, NULL, t->sha256(), NULL, pkey) == 1) {
            result = t->digest_verify(ctx, signature, signature_count, data, count) == 1 ? FEEDCTL_VERIFY_VALID : FEEDCTL_VERIFY_INVALID;
        } else {
            result = FEEDCTL_VERIFY_BAD_KEY;
        }
        t->md_ctx_free(ctx);
    }
    t->pkey_free(pkey);
    if (result != FEEDCTL_VERIFY_VALID) t->clear_errors();
    return result;
}

#endif
