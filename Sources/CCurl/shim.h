#ifndef SIGNERKIT_CCURL_SHIM_H
#define SIGNERKIT_CCURL_SHIM_H
#include <curl/curl.h>
#include <fcntl.h>
#include <sys/socket.h>

/* curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call: fixed-argument wrappers. */

static inline CURLcode sk_curl_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode sk_curl_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode sk_curl_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode sk_curl_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode sk_curl_setopt_offset(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode sk_curl_setopt_write(CURL *handle, CURLoption option, curl_write_callback value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode sk_curl_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}
static inline CURLcode sk_curl_getinfo_offset(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(handle, info, value);
}
static inline CURLcode sk_curl_getinfo_pointer(CURL *handle, CURLINFO info, void **value) {
    return curl_easy_getinfo(handle, info, value);
}

/* curl_global_init(CURL_GLOBAL_DEFAULT): the macro is an expression Swift does not import. */
static inline CURLcode sk_curl_global_init(void) { return curl_global_init(CURL_GLOBAL_DEFAULT); }

/* The size of the buffer CURLOPT_ERRORBUFFER needs. */
static inline size_t sk_curl_error_size(void) { return CURL_ERROR_SIZE; }

/* Sockets curl opens are close-on-exec, so a child process (a signer, a browser) never inherits one. */
static inline curl_socket_t sk_curl_open_cloexec_socket(void *clientp, curlsocktype purpose, struct curl_sockaddr *address) {
    (void)clientp;
    (void)purpose;
#ifdef SOCK_CLOEXEC
    return socket(address->family, address->socktype | SOCK_CLOEXEC, address->protocol);
#else
    curl_socket_t fd = socket(address->family, address->socktype, address->protocol);
    if (fd != CURL_SOCKET_BAD) { fcntl(fd, F_SETFD, FD_CLOEXEC); }
    return fd;
#endif
}
static inline CURLcode sk_curl_use_cloexec_sockets(CURL *handle) {
    return curl_easy_setopt(handle, CURLOPT_OPENSOCKETFUNCTION, sk_curl_open_cloexec_socket);
}
#endif
