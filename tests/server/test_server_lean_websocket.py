"""``connections.LeanWebSocket``, uvicorn's WebSocket protocol as ``tapete serve`` runs it,
driven in process with a transport that records what the protocol does to it: the reading
pauses only once several received messages wait for the app (uvicorn paused after each),
and the write-at-once extension frames a text as uvicorn's send would, or refuses when that
send would not write (a full buffer, a close sent, a lost connection)."""

from __future__ import annotations

import asyncio
import base64
import gc
import os
import weakref
from typing import Any

import uvicorn
from server_helpers import run_async
from uvicorn.server import ServerState
from websockets.extensions.permessage_deflate import PerMessageDeflate
from websockets.frames import Frame, Opcode
from websockets.streams import StreamReader

from tapete.server.connections import SEND_TEXT, LeanWebSocket, text_frame


class Transport(asyncio.Transport):
    """Records writes and the pauses of the reading."""

    def __init__(self) -> None:
        super().__init__()
        self.written = bytearray()
        self.pauses = 0
        self.resumes = 0
        self.closing = False

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"sockname": ("127.0.0.1", 8000), "peername": ("127.0.0.1", 5555)}.get(name, default)

    def write(self, data: Any) -> None:
        self.written += data

    def pause_reading(self) -> None:
        self.pauses += 1

    def resume_reading(self) -> None:
        self.resumes += 1

    def is_closing(self) -> bool:
        return self.closing

    def close(self) -> None:
        self.closing = True


def client_text(text: str) -> bytes:
    """A client's text frame (masked, as a client must)."""
    payload = text.encode()
    mask = os.urandom(4)
    masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    assert len(payload) < 126
    return bytes((0x81, 0x80 | len(payload))) + mask + masked


def server_texts(data: bytes) -> list[str]:
    """The text frames the server wrote (after its handshake answer)."""
    head, _, rest = bytes(data).partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 101"), head
    reader = StreamReader()
    reader.feed_data(rest)
    reader.feed_eof()
    texts = []
    parser = Frame.parse(reader.read_exact, mask=False)
    while True:
        try:
            frame = next_frame(parser)
        except EOFError:
            return texts
        assert frame.opcode is Opcode.TEXT
        texts.append(frame.data.decode())
        parser = Frame.parse(reader.read_exact, mask=False)


def next_frame(parser: Any) -> Frame:
    try:
        next(parser)
    except StopIteration as done:
        frame: Frame = done.value
        return frame
    raise EOFError


def test_text_frame_is_the_librarys_frame_at_every_length_boundary() -> None:
    for n in (0, 1, 125, 126, 127, 65535, 65536, 70000):
        payload = bytes(range(256)) * (n // 256) + bytes(n % 256)
        assert text_frame(payload) == Frame(Opcode.TEXT, payload).serialize(mask=False), n


def handshake(protocol: LeanWebSocket, extensions: str = "") -> None:
    """The client's opening request (with ``extensions``: its Sec-WebSocket-Extensions)."""
    key = base64.b64encode(os.urandom(16)).decode()
    offer = f"Sec-WebSocket-Extensions: {extensions}\r\n" if extensions else ""
    protocol.data_received(
        (
            "GET /ws/1 HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n{offer}"
            "Sec-WebSocket-Version: 13\r\n\r\n"
        ).encode()
    )


def opened(extensions: str = "", **options: Any) -> tuple[LeanWebSocket, Transport, asyncio.Event]:
    """(In a running loop) a protocol with uvicorn's ``options`` that received a client's
    opening request, its transport, and an event set once the app (which never reads) has
    accepted."""
    accepted = asyncio.Event()

    async def app(scope: Any, receive: Any, send: Any) -> None:
        assert (await receive())["type"] == "websocket.connect"
        await send({"type": "websocket.accept"})
        accepted.set()
        await asyncio.sleep(3600)  # (never reads: the messages wait)

    config = uvicorn.Config(app, ws=LeanWebSocket, ws_ping_interval=None, lifespan="off", **options)
    config.load()
    protocol = LeanWebSocket(config, ServerState(), {}, asyncio.get_running_loop())
    transport = Transport()
    protocol.connection_made(transport)
    handshake(protocol, extensions)
    return protocol, transport, accepted


async def ended(protocol: LeanWebSocket) -> None:
    """Cancel the app's task of ``protocol`` and wait for it."""
    tasks = list(protocol.tasks)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


def test_with_compression_the_library_frames_every_text() -> None:
    """A connection that negotiated permessage-deflate (``Limits.ws_deflate``) gets the
    library's compressed frames, which a client inflates back to the texts."""

    async def main() -> None:
        protocol, transport, accepted = opened("permessage-deflate", ws_per_message_deflate=True)
        send_now = protocol.scope["extensions"][SEND_TEXT]
        await asyncio.wait_for(accepted.wait(), 5)
        assert protocol.conn.extensions, "the server did not take the offered compression"
        texts = ['{"type":"view","view":{}}' * 40, "ñ" * 300]
        start = len(transport.written)
        for text in texts:
            assert send_now(text) is True
        frames = bytes(transport.written[start:])
        assert len(frames) < sum(len(t.encode()) for t in texts)  # compressed
        decoder = PerMessageDeflate(False, False, 15, 15)
        reader = StreamReader()
        reader.feed_data(frames)
        reader.feed_eof()
        got = []
        for _ in texts:  # (the parser inflates them: a frame with RSV1 set, else refused)
            parser = Frame.parse(reader.read_exact, mask=False, extensions=[decoder])
            got.append(next_frame(parser).data.decode())
        assert got == texts
        protocol.connection_lost(None)
        await ended(protocol)

    run_async(main())


def test_reading_pauses_only_when_messages_wait_and_texts_are_written_at_once() -> None:
    async def main() -> None:
        protocol, transport, accepted = opened()
        send_now = protocol.scope["extensions"][SEND_TEXT]
        assert send_now("too early") is False  # (before the handshake's answer)
        await asyncio.wait_for(accepted.wait(), 5)

        for n in range(LeanWebSocket.READ_QUEUE - 1):
            protocol.data_received(client_text(f'{{"n":{n}}}'))
        assert transport.pauses == 0  # uvicorn's own protocol had paused 7 times
        protocol.data_received(client_text('{"n":"last"}'))
        assert transport.pauses == 1
        assert protocol.queue.qsize() == LeanWebSocket.READ_QUEUE

        # the frames as websockets itself writes them (the three sizes of a length field)
        texts = ['{"type":"view"}', "ñ", "x" * 125, "y" * 126, "é" * 40000, "z" * 70000]
        expected = bytearray()
        for text in texts:
            assert send_now(text) is True
            expected += Frame(Opcode.TEXT, text.encode()).serialize(mask=False)
        assert transport.written.endswith(expected)
        protocol.pause_writing()  # (the transport's buffer is full)
        assert send_now("waits") is False
        protocol.resume_writing()
        assert send_now("again") is True
        assert server_texts(transport.written) == [*texts, "again"]

        # the client closes: nothing is written after the close's answer
        mask = os.urandom(4)
        code = (1000).to_bytes(2, "big")
        protocol.data_received(
            bytes((0x88, 0x82)) + mask + bytes(b ^ m for b, m in zip(code, mask, strict=False))
        )
        written = len(transport.written)
        assert send_now("after the close") is False
        assert len(transport.written) == written
        protocol.connection_lost(None)
        assert send_now("gone") is False
        # the extension is the protocol's method in the protocol's scope: the cycle goes
        # with the connection, else every closed socket waited for the collector's full
        # passes (p99 300 ms at 1,000 tables: docs/benchmarks.md)
        assert SEND_TEXT not in protocol.scope["extensions"]
        tasks = list(protocol.tasks)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        del send_now
        gc.collect()
        gc.disable()
        try:
            gone = weakref.ref(protocol)
            del protocol, transport, tasks, task
            assert gone() is None, "a closed connection is only freed by the collector"
        finally:
            gc.enable()

    run_async(main())
