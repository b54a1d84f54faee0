#include "flowhost_crypto.h"

#include <dlfcn.h>
#include <pthread.h>

static flowhost_crypto_api api;
static const char *load_error;
static pthread_once_t once = PTHREAD_ONCE_INIT;

#define RESOLVE(symbol)                                                     \
    do {                                                                    \
        api.symbol = (__typeof__(api.symbol))dlsym(library, #symbol);      \
        if (!api.symbol) {                                                  \
            load_error = "libcrypto.so.3 lacks " #symbol;                   \
            return;                                                         \
        }                                                                   \
    } while (0)

static void load(void) {
    /* Never closed: the table lives as long as the process. */
    void *library = dlopen("libcrypto.so.3", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        load_error = "cannot load libcrypto.so.3 (Debian: apt-get install libssl3)";
        return;
    }
    RESOLVE(d2i_PUBKEY);
    RESOLVE(i2d_PUBKEY);
    RESOLVE(EVP_PKEY_free);
    RESOLVE(EVP_PKEY_CTX_new);
    RESOLVE(EVP_PKEY_CTX_new_from_name);
    RESOLVE(EVP_PKEY_CTX_free);
    RESOLVE(EVP_PKEY_public_check);
    RESOLVE(EVP_PKEY_keygen_init);
    RESOLVE(EVP_PKEY_CTX_set_group_name);
    RESOLVE(EVP_PKEY_generate);
    RESOLVE(EVP_sha256);
    RESOLVE(EVP_MD_CTX_new);
    RESOLVE(EVP_MD_CTX_free);
    RESOLVE(EVP_DigestVerifyInit);
    RESOLVE(EVP_DigestVerify);
    RESOLVE(EVP_DigestSignInit);
    RESOLVE(EVP_DigestSign);
    RESOLVE(ECDSA_SIG_new);
    RESOLVE(ECDSA_SIG_free);
    RESOLVE(d2i_ECDSA_SIG);
    RESOLVE(i2d_ECDSA_SIG);
    RESOLVE(ECDSA_SIG_get0_r);
    RESOLVE(ECDSA_SIG_get0_s);
    RESOLVE(ECDSA_SIG_set0);
    RESOLVE(BN_bin2bn);
    RESOLVE(BN_bn2binpad);
    RESOLVE(BN_is_negative);
    RESOLVE(BN_free);
    RESOLVE(ERR_get_error);
    RESOLVE(ERR_error_string_n);
    RESOLVE(ERR_clear_error);
    RESOLVE(EC_GROUP_new_by_curve_name);
    RESOLVE(EC_GROUP_free);
    RESOLVE(EC_KEY_new);
    RESOLVE(EC_KEY_free);
    RESOLVE(EC_KEY_set_group);
    RESOLVE(EC_KEY_oct2key);
    RESOLVE(ECDSA_verify);
}

const flowhost_crypto_api *flowhost_crypto_load(const char **error) {
    pthread_once(&once, load);
    if (load_error) {
        if (error) *error = load_error;
        return NULL;
    }
    return &api;
}
