#ifndef C_MICRO_HTTPD_SHIM_H
#define C_MICRO_HTTPD_SHIM_H

#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <microhttpd.h>

// Swift cannot call C variadic functions. These wrappers give the variadic entry points
// we use a fixed signature; they hold no logic of their own.

/// MHD_start_daemon with the accept policy, the access handler, the completion callback (all
/// getting `context`) and every other option passed as an MHD_OPTION_ARRAY. The array goes
/// first: it starts with the logger, which libmicrohttpd wants before any other option.
static inline struct MHD_Daemon *
CMicroHTTPD_start_daemon(unsigned int flags,
                         uint16_t port,
                         MHD_AcceptPolicyCallback accept,
                         MHD_AccessHandlerCallback handler,
                         void *context,
                         MHD_RequestCompletedCallback completed,
                         struct MHD_OptionItem *options) {
    return MHD_start_daemon(flags, port, accept, context, handler, context,
                            MHD_OPTION_ARRAY, options,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, context,
                            MHD_OPTION_END);
}

/// MHD_get_daemon_info(MHD_DAEMON_INFO_BIND_PORT): the port actually bound (for port 0).
static inline uint16_t
CMicroHTTPD_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

/// MHD_get_connection_info(MHD_CONNECTION_INFO_CLIENT_ADDRESS): the peer's address, owned
/// by the connection and valid while it lives; NULL when libmicrohttpd has none.
static inline const struct sockaddr *
CMicroHTTPD_client_address(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info == NULL ? NULL : info->client_addr;
}

/// MHD_get_connection_info(MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE): the bytes of the
/// request line and header block; 0 when libmicrohttpd has no such figure.
static inline size_t
CMicroHTTPD_request_header_size(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE);
    return info == NULL ? 0 : info->header_size;
}

/// MHD_set_response_options with flags and no further option.
static inline enum MHD_Result
CMicroHTTPD_set_response_flags(struct MHD_Response *response, enum MHD_ResponseFlags flags) {
    return MHD_set_response_options(response, flags, MHD_RO_END);
}

#endif
