"""The bench's server socket: connections it accepts go out without Nagle's delay."""

from __future__ import annotations

import asyncio
import socket

from bench.server_main import listening_socket


async def test_accepted_connections_have_tcp_nodelay() -> None:
    # asyncio sets TCP_NODELAY on a connection only when its socket says IPPROTO_TCP,
    # which an accepted connection inherits from the listener; jarvis-memory serve's
    # listener (made by asyncio) does, and so must the bench's.
    accepted: asyncio.Future[int] = asyncio.get_running_loop().create_future()

    class Probe(asyncio.Protocol):
        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            sock = transport.get_extra_info("socket")
            accepted.set_result(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
            transport.close()

    sock = listening_socket()
    server = await asyncio.get_running_loop().create_server(Probe, sock=sock)
    async with server:
        host, port = sock.getsockname()
        _, writer = await asyncio.open_connection(host, port)
        try:
            assert await asyncio.wait_for(accepted, 5) == 1
        finally:
            writer.close()
            await writer.wait_closed()
