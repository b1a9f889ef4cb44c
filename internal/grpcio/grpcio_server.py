"""A gRPC health server on grpcio (gRPC's own C-core stack), for tend's
client tests: no code shared with tend. It answers
grpc.health.v1.Health/Check with raw bytes (no generated code, no
grpcio-health-checking): SERVING for any service but "down".

usage: grpcio_server.py ADDR [CERT KEY [CLIENT_CA]]
ADDR is grpcio's: 127.0.0.1:0 or unix:/path. With CERT and KEY it serves
TLS; with CLIENT_CA it requires a client certificate signed by it (mTLS).
Prints "ready PORT" once serving, then serves until stdin closes.
"""
import sys

import grpc

SERVING = b"\x08\x01"
NOT_SERVING = b"\x08\x02"


def check(request, context):
    # request is the raw HealthCheckRequest: field 1, the service name.
    service = request[2:] if request[:1] == b"\x0a" else b""
    return NOT_SERVING if service == b"down" else SERVING


def main():
    from concurrent import futures

    addr = sys.argv[1]
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    handler = grpc.method_handlers_generic_handler(
        "grpc.health.v1.Health",
        {"Check": grpc.unary_unary_rpc_method_handler(check)},
    )
    server.add_generic_rpc_handlers((handler,))
    if len(sys.argv) >= 4:
        cert = open(sys.argv[2], "rb").read()
        key = open(sys.argv[3], "rb").read()
        ca = open(sys.argv[4], "rb").read() if len(sys.argv) >= 5 else None
        creds = grpc.ssl_server_credentials(
            [(key, cert)], root_certificates=ca, require_client_auth=ca is not None
        )
        port = server.add_secure_port(addr, creds)
    else:
        port = server.add_insecure_port(addr)
    server.start()
    print("ready", port, flush=True)
    sys.stdin.read()
    server.stop(0)


main()
