#ifndef SIGNERKIT_CMICROHTTPD_SHIM_H
#define SIGNERKIT_CMICROHTTPD_SHIM_H
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <microhttpd.h>

/* MHD_start_daemon and MHD_get_daemon_info are variadic, which Swift cannot call: fixed-argument wrappers. */

/** The URI log callback: sees the raw request target and returns the request's context. */
typedef void *(*sk_mhd_uri_log)(void *cls, const char *uri, struct MHD_Connection *connection);

/** Starts a daemon bound to `address` with the server's one set of limits; with `tls_key_pem` and
 *  `tls_cert_pem` (NUL-terminated PEM, both or neither) it serves HTTPS through GnuTLS, TLS 1.2 and 1.3 only. */
static inline struct MHD_Daemon *sk_mhd_start(
    unsigned int flags, const struct sockaddr *address, MHD_AccessHandlerCallback handler, void *cls,
    MHD_RequestCompletedCallback completed, sk_mhd_uri_log uri_log, unsigned int connection_limit,
    unsigned int per_ip_connection_limit, unsigned int timeout_seconds, size_t memory_limit,
    unsigned int listen_backlog, const char *tls_key_pem, const char *tls_cert_pem) {
    struct MHD_OptionItem options[12] = {
        {MHD_OPTION_SOCK_ADDR, 0, (void *)address},
        {MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)completed, cls},
        {MHD_OPTION_URI_LOG_CALLBACK, (intptr_t)uri_log, cls},
        {MHD_OPTION_CONNECTION_LIMIT, (intptr_t)connection_limit, NULL},
        {MHD_OPTION_PER_IP_CONNECTION_LIMIT, (intptr_t)per_ip_connection_limit, NULL},
        {MHD_OPTION_CONNECTION_TIMEOUT, (intptr_t)timeout_seconds, NULL},
        {MHD_OPTION_CONNECTION_MEMORY_LIMIT, (intptr_t)memory_limit, NULL},
        {MHD_OPTION_LISTEN_BACKLOG_SIZE, (intptr_t)listen_backlog, NULL},
    };
    int count = 8;
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
    MHD_RequestCompletedCallback completed, sk_mhd_uri_log uri_log, unsigned int connection_limit,
    unsigned int timeout_seconds, size_t memory_limit) {
    return MHD_start_daemon(
        flags, 0, NULL, NULL, handler, cls,
        MHD_OPTION_LISTEN_SOCKET, (MHD_socket)listen_fd,
        MHD_OPTION_NOTIFY_COMPLETED, completed, cls,
        MHD_OPTION_URI_LOG_CALLBACK, uri_log, cls,
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

/** The port the daemon is bound to, or 0. */
static inline uint16_t sk_mhd_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}
#endif
