#ifndef SIGNERKIT_CMICROHTTPD_SHIM_H
#define SIGNERKIT_CMICROHTTPD_SHIM_H
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <microhttpd.h>

/* MHD_start_daemon and MHD_get_daemon_info are variadic, which Swift cannot call: fixed-argument wrappers. */

/** The URI log callback: sees the raw request target and returns the request's context. */
typedef void *(*sk_mhd_uri_log)(void *cls, const char *uri, struct MHD_Connection *connection);

/** Starts a daemon bound to `address` with the server's one set of limits; `notify` hears of every connection
 *  opened and closed. With `tls_key_pem` and `tls_cert_pem` (NUL-terminated PEM, both or neither) it serves
 *  HTTPS through GnuTLS, TLS 1.2 and 1.3 only. */
static inline struct MHD_Daemon *sk_mhd_start(
    unsigned int flags, const struct sockaddr *address, MHD_AccessHandlerCallback handler, void *cls,
    MHD_RequestCompletedCallback completed, sk_mhd_uri_log uri_log, MHD_NotifyConnectionCallback notify,
    unsigned int connection_limit, unsigned int per_ip_connection_limit, unsigned int timeout_seconds,
    size_t memory_limit, unsigned int listen_backlog, const char *tls_key_pem, const char *tls_cert_pem) {
    struct MHD_OptionItem options[13] = {
        {MHD_OPTION_SOCK_ADDR, 0, (void *)address},
        {MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)completed, cls},
        {MHD_OPTION_URI_LOG_CALLBACK, (intptr_t)uri_log, cls},
        {MHD_OPTION_NOTIFY_CONNECTION, (intptr_t)notify, cls},
        {MHD_OPTION_CONNECTION_LIMIT, (intptr_t)connection_limit, NULL},
        {MHD_OPTION_PER_IP_CONNECTION_LIMIT, (intptr_t)per_ip_connection_limit, NULL},
        {MHD_OPTION_CONNECTION_TIMEOUT, (intptr_t)timeout_seconds, NULL},
        {MHD_OPTION_CONNECTION_MEMORY_LIMIT, (intptr_t)memory_limit, NULL},
        {MHD_OPTION_LISTEN_BACKLOG_SIZE, (intptr_t)listen_backlog, NULL},
    };
    int count = 9;
    if (tls_key_pem != NULL && tls_cert_pem != NULL) {
        flags |= MHD_USE_TLS;
        options[count++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_KEY, 0, (void *)tls_key_pem};
        options[count++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_CERT, 0, (void *)tls_cert_pem};
        options[count++] = (struct MHD_OptionItem){
            MHD_OPTION_HTTPS_PRIORITIES, 0, (void *)"NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2"};
    }
    options[count] = (struct MHD_OptionItem){MHD_OPTION_END, 0, NULL};
    return MHD_start_daemon(flags, 0, NULL, NULL, handler, cls, MHD_OPTION_ARRAY, options, MHD_OPTION_END);
}

/** Starts a daemon on `listen_fd`, a bound and listening socket (a Unix-domain one), with the same limits. */
static inline struct MHD_Daemon *sk_mhd_start_on_socket(
    unsigned int flags, int listen_fd, MHD_AccessHandlerCallback handler, void *cls,
    MHD_RequestCompletedCallback completed, sk_mhd_uri_log uri_log, MHD_NotifyConnectionCallback notify,
    unsigned int connection_limit, unsigned int timeout_seconds, size_t memory_limit) {
    return MHD_start_daemon(
        flags, 0, NULL, NULL, handler, cls,
        MHD_OPTION_LISTEN_SOCKET, (MHD_socket)listen_fd,
        MHD_OPTION_NOTIFY_COMPLETED, completed, cls,
        MHD_OPTION_URI_LOG_CALLBACK, uri_log, cls,
        MHD_OPTION_NOTIFY_CONNECTION, notify, cls,
        MHD_OPTION_CONNECTION_LIMIT, connection_limit,
        MHD_OPTION_CONNECTION_TIMEOUT, timeout_seconds,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, memory_limit,
        MHD_OPTION_END);
}

/** The socket of `connection`, or -1. */
static inline int sk_mhd_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : (int)info->connect_fd;
}

/** The number the connection notification stored in the connection's socket context, or 0. */
static inline uintptr_t sk_mhd_connection_tag(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info == NULL ? 0 : (uintptr_t)info->socket_context;
}

/** Copies the peer's IP address (4 bytes for IPv4, 16 for IPv6) into `out` and returns its length; 0 when the
 *  peer has none (a Unix-domain socket). */
static inline int sk_mhd_connection_address(struct MHD_Connection *connection, uint8_t out[16]) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (info == NULL || info->client_addr == NULL) return 0;
    if (info->client_addr->sa_family == AF_INET) {
        memcpy(out, &((const struct sockaddr_in *)info->client_addr)->sin_addr, 4);
        return 4;
    }
    if (info->client_addr->sa_family == AF_INET6) {
        memcpy(out, &((const struct sockaddr_in6 *)info->client_addr)->sin6_addr, 16);
        return 16;
    }
    return 0;
}

/** What `sk_mhd_head_intact` adds up over the header fields. */
struct sk_mhd_head_scan {
    const char *start;
    const char *end;
    const char *first_name;
    size_t expected;
    int broken;
};

static enum MHD_Result sk_mhd_head_scan_field(void *cls, enum MHD_ValueKind kind, const char *key, const char *value) {
    (void)kind;
    struct sk_mhd_head_scan *scan = (struct sk_mhd_head_scan *)cls;
    if (key == NULL || value == NULL) {
        scan->broken = 1;
        return MHD_NO;
    }
    size_t name_length = strlen(key);
    const char *after_colon = key + name_length + 1;
    if (key < scan->start || value < after_colon || value > scan->end) {
        scan->broken = 1;
        return MHD_NO;
    }
    for (const char *blank = after_colon; blank < value; blank++) {
        if (*blank != ' ' && *blank != '\t') {
            scan->broken = 1;
            return MHD_NO;
        }
    }
    scan->expected += name_length + (size_t)(value - after_colon) + strlen(value);
    if (scan->first_name == NULL || key < scan->first_name) scan->first_name = key;
    return MHD_YES;
}

/** 1 when every header field of the request (on the access handler's first call, whose `method` argument points
 *  at the head's first byte) holds exactly the bytes that arrived, 0 when one was cut short: libmicrohttpd 0.9.x
 *  ends a field's value at a NUL byte and joins folded lines (obs-fold), both silently.
 *
 *  libmicrohttpd 0.9.x parses the head in place: in the bytes [method, method + head size) it overwrites each line
 *  end and each field's colon with NUL and keeps the name, the blanks after the colon and the value where they
 *  arrived. So the head's non-NUL bytes from the first field on must be exactly the names, blanks and values it
 *  reports; a NUL inside a value leaves its tail uncounted, a folded line moves the value out of the head.
 *  libmicrohttpd 1.0 refuses both itself (400), so there this is always 1. */
static inline int sk_mhd_head_intact(struct MHD_Connection *connection, const char *method) {
#if MHD_VERSION >= 0x01000000
    (void)connection;
    (void)method;
    return 1;
#else
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE);
    if (info == NULL || method == NULL) return 0;
    struct sk_mhd_head_scan scan = {method, method + info->header_size, NULL, 0, 0};
    MHD_get_connection_values(connection, MHD_HEADER_KIND, sk_mhd_head_scan_field, &scan);
    if (scan.broken) return 0;
    if (scan.first_name == NULL) return 1;
    size_t present = 0;
    for (const char *byte = scan.first_name; byte < scan.end; byte++) {
        if (*byte != 0) present++;
    }
    return present == scan.expected;
#endif
}

/** The port the daemon is bound to, or 0. */
static inline uint16_t sk_mhd_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}
#endif
