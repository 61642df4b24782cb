"""``connections.LeanWebSocket``, uvicorn's WebSocket protocol as ``tapete serve`` runs it,
driven in process with a transport that records what the protocol does to it: the reading
pauses only once several received messages wait for the app (uvicorn paused after each),
and the write-at-once extension frames a text as uvicorn's send would, or refuses when that
send would not write (a full buffer, a close sent, a lost connection)."""

from __future__ import annotations

import asyncio
import base64
import gc
import itertools
import os
import weakref
from typing import Any

import uvicorn
from hypothesis import given, settings
from hypothesis import strategies as st
from uvicorn.server import ServerState
from websockets.extensions.permessage_deflate import PerMessageDeflate
from websockets.frames import Frame, Opcode
from websockets.streams import StreamReader

from tapete.server.connections import SEND_TEXT, LeanWebSocket, text_frame
from tapete.server.limits import RefusalLog


class Transport(asyncio.Transport):
    """Records writes and the pauses of the reading."""

    def __init__(self) -> None:
        super().__init__()
        self.written = bytearray()
        self.pauses = 0
        self.resumes = 0
        self.closing = False
        self.aborted = False

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

    def abort(self) -> None:
        self.closing = self.aborted = True


def client_text(text: str) -> bytes:
    """A client's text frame (masked, as a client must)."""
    payload = text.encode()
    mask = os.urandom(4)
    masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    assert len(payload) < 126
    return bytes((0x81, 0x80 | len(payload))) + mask + masked


def server_frames(data: bytes) -> list[Frame]:
    """The frames the server wrote (after its handshake answer)."""
    head, _, rest = bytes(data).partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 101"), head
    reader = StreamReader()
    reader.feed_data(rest)
    reader.feed_eof()
    frames = []
    while True:
        try:
            frames.append(next_frame(Frame.parse(reader.read_exact, mask=False)))
        except EOFError:
            return frames


def server_texts(data: bytes) -> list[str]:
    """The text frames the server wrote (after its handshake answer)."""
    frames = server_frames(data)
    assert all(frame.opcode is Opcode.TEXT for frame in frames)
    return [frame.data.decode() for frame in frames]


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


def opened(
    extensions: str = "", kind: type[LeanWebSocket] = LeanWebSocket, **options: Any
) -> tuple[LeanWebSocket, Transport, asyncio.Event]:
    """(In a running loop) a protocol of ``kind`` with uvicorn's ``options`` that received a
    client's opening request, its transport, and an event set once the app (which never
    reads) has accepted."""
    accepted = asyncio.Event()

    async def app(scope: Any, receive: Any, send: Any) -> None:
        assert (await receive())["type"] == "websocket.connect"
        await send({"type": "websocket.accept"})
        accepted.set()
        await asyncio.sleep(3600)  # (never reads: the messages wait)

    config = uvicorn.Config(app, ws=kind, ws_ping_interval=None, lifespan="off", **options)
    config.load()
    protocol = kind(config, ServerState(), {}, asyncio.get_running_loop())
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

    asyncio.run(main())


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

    asyncio.run(main())


# --- a client that reads nothing ------------------------------------------------------------


class Bounded(LeanWebSocket):
    """The protocol as the server runs it (``lean_websocket``), with a short bound."""

    WRITE_STALL_S = 0.01


async def dropped(transport: Transport) -> None:
    """Wait (a few seconds at most) until the protocol drops ``transport``."""
    for _ in range(500):
        if transport.aborted:
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the transport was not dropped")


def test_a_socket_whose_writing_stays_paused_is_closed_then_dropped() -> None:
    """The transport's buffer full (the client reads nothing) for ``WRITE_STALL_S``: the app
    gets its disconnect (1008 and why), the close frame is written after the bytes not yet
    sent, the transport closes once they are sent, and it is dropped when they still are
    not as long again later. A buffer that drains in time changes nothing."""

    async def main() -> None:
        protocol, transport, accepted = opened(kind=Bounded)
        await asyncio.wait_for(accepted.wait(), 5)
        protocol.pause_writing()
        protocol.resume_writing()  # (read in time: the wait is over)
        assert protocol._stall is None and not transport.closing
        protocol.pause_writing()
        reason = "not reading: nothing could be written for 0.01 s"
        gone = await asyncio.wait_for(protocol.queue.get(), 5)
        assert gone == {"type": "websocket.disconnect", "code": 1008, "reason": reason}
        close = server_frames(transport.written)[-1]
        assert close.opcode is Opcode.CLOSE
        assert close.data == (1008).to_bytes(2, "big") + reason.encode()
        assert transport.closing and not protocol.send_text_now("late")
        await dropped(transport)
        protocol.connection_lost(None)
        await ended(protocol)

    asyncio.run(main())


def test_an_unanswered_ping_tells_the_app_and_the_socket_goes_within_the_bound() -> None:
    """uvicorn closed a socket whose ping went unanswered without telling the app (its seat
    stayed connected until the transport's end, which waited for the unsent bytes): now the
    app hears of it at once, and the transport is dropped when it has not gone after the
    bound."""

    async def main() -> None:
        protocol, transport, accepted = opened(kind=Bounded)
        await asyncio.wait_for(accepted.wait(), 5)
        protocol.keepalive_timeout()
        gone = protocol.queue.get_nowait()
        assert gone == {
            "type": "websocket.disconnect",
            "code": 1011,
            "reason": "keepalive ping timeout",
        }
        assert server_frames(transport.written)[-1].opcode is Opcode.CLOSE and transport.closing
        await dropped(transport)
        protocol.connection_lost(None)
        await ended(protocol)

    asyncio.run(main())


def test_a_socket_closed_for_its_ping_while_its_writing_waits_is_not_closed_again() -> None:
    """A socket whose writing is paused when its ping goes unanswered is closed for the ping:
    its wait for the writing ends there, so it is not noted as not reading, and its drop
    comes the bound after that close (the wait, left running, noted a refusal and put the
    drop off by as long again)."""

    class Noted(Bounded):
        REFUSALS = RefusalLog()

    async def main() -> None:
        protocol, transport, accepted = opened(kind=Noted)
        await asyncio.wait_for(accepted.wait(), 5)
        protocol.pause_writing()
        protocol.keepalive_timeout()
        assert protocol._stall is None
        gone = protocol.queue.get_nowait()
        assert (gone["code"], gone["reason"]) == (1011, "keepalive ping timeout")
        await dropped(transport)
        assert "ws_not_reading" not in Noted.REFUSALS.kinds
        protocol.connection_lost(None)
        await ended(protocol)

    asyncio.run(main())


# --- reading: the fast path against the library's ------------------------------------------


class LibraryReads(LeanWebSocket):
    """The same protocol with every byte read by the library (uvicorn's way)."""

    FAST_READ = False


def masked(opcode: Opcode, data: bytes, *, fin: bool = True) -> bytes:
    return Frame(opcode, data, fin).serialize(mask=True)


#: client frames: texts of every length class, and everything the library must read
TEXTS = st.text(max_size=40).map(lambda t: masked(Opcode.TEXT, t.encode()))
FRAMES = st.one_of(
    TEXTS,
    TEXTS,
    st.sampled_from([125, 126, 300, 65535, 65536]).map(
        lambda n: masked(Opcode.TEXT, b'{"pad":"' + b"x" * (n - 10) + b'"}')
    ),
    st.binary(max_size=20).map(lambda b: masked(Opcode.BINARY, b)),
    st.binary(max_size=20).map(lambda b: masked(Opcode.PING, b)),
    st.binary(max_size=20).map(lambda b: masked(Opcode.PONG, b)),
    st.lists(st.text(max_size=10), min_size=2, max_size=4).map(
        lambda parts: b"".join(
            masked(Opcode.TEXT if n == 0 else Opcode.CONT, p.encode(), fin=n == len(parts) - 1)
            for n, p in enumerate(parts)
        )
    ),
    st.just(masked(Opcode.CLOSE, (1000).to_bytes(2, "big"))),
    st.just(masked(Opcode.TEXT, b"\xff\xfe not UTF-8")),
    st.just(bytes([0x81 | 0x40]) + masked(Opcode.TEXT, b"rsv1")[1:]),  # RSV1, no extension
    st.just(Frame(Opcode.TEXT, b"unmasked").serialize(mask=False)),
    st.just(masked(Opcode.TEXT, b"y" * 70_000)),  # past the size limit of the test
)


async def read_by(kind: type[LeanWebSocket], chunks: list[bytes]) -> tuple[Any, ...]:
    """What a protocol of ``kind`` gives the app and writes, fed ``chunks``."""
    accepted = asyncio.Event()

    async def app(scope: Any, receive: Any, send: Any) -> None:
        await receive()
        await send({"type": "websocket.accept"})
        accepted.set()
        await asyncio.sleep(3600)

    config = uvicorn.Config(
        app,
        ws=kind,
        ws_ping_interval=None,
        lifespan="off",
        ws_max_size=66_000,
        log_level="critical",
    )
    config.load()
    protocol = kind(config, ServerState(), {}, asyncio.get_running_loop())
    transport = Transport()
    protocol.connection_made(transport)
    handshake(protocol)
    await asyncio.wait_for(accepted.wait(), 5)
    start = len(transport.written)
    for chunk in chunks:
        if transport.closing:
            break
        protocol.data_received(chunk)
    messages = []
    while not protocol.queue.empty():
        messages.append(protocol.queue.get_nowait())
    seen = (messages, bytes(transport.written[start:]), transport.closing, transport.pauses)
    protocol.connection_lost(None)
    await ended(protocol)
    return seen


@settings(max_examples=150, deadline=None)
@given(frames=st.lists(FRAMES, max_size=8), cuts=st.lists(st.integers(0, 200_000), max_size=6))
def test_the_fast_reading_gives_the_app_and_the_client_what_the_library_does(
    frames: list[bytes], cuts: list[int]
) -> None:
    """Any client frames, cut into any chunks (TCP keeps no frame boundaries): the messages
    the app receives, in order, the bytes written back (pongs, the close), the close of the
    socket and the pauses of the reading are those of the library reading the same bytes
    in reads that also end at every frame's end. (Given a read of several frames, uvicorn
    drops the messages before a frame that breaks a rule, and a text that is not UTF-8
    followed by a close in one read raises in its handler; the fast reading hands the
    library one frame at a time, as if each came in a read of its own.)"""
    data = b"".join(frames)
    ends = set(itertools.accumulate(len(f) for f in frames))
    points = sorted({min(c, len(data)) for c in cuts} | {0, len(data)})
    chunks = [data[a:b] for a, b in itertools.pairwise(points)]
    framed = [data[a:b] for a, b in itertools.pairwise(sorted(set(points) | ends))]

    async def both() -> None:
        fast = await read_by(LeanWebSocket, chunks)
        assert fast == await read_by(LibraryReads, framed)

    asyncio.run(both())


def test_the_fast_reading_reads_a_plain_exchange_itself() -> None:
    """Texts and pongs, one byte at a time: the library's reader never sees a text frame
    (the fast path is really taken), and the app gets every text."""

    async def main() -> None:
        protocol, _, accepted = opened()
        await asyncio.wait_for(accepted.wait(), 5)
        seen: list[bytes] = []
        library = protocol.conn.receive_data
        protocol.conn.receive_data = lambda data: (seen.append(bytes(data)), library(data))[1]  # type: ignore[method-assign]
        frames = [client_text(f'{{"n":{n}}}') for n in range(3)]
        pong = masked(Opcode.PONG, b"p")
        for byte in b"".join([frames[0], pong, frames[1], frames[2]]):
            protocol.data_received(bytes([byte]))
        assert b"".join(seen) == pong  # the library read the pong only
        texts = [protocol.queue.get_nowait()["text"] for _ in range(3)]
        assert texts == ['{"n":0}', '{"n":1}', '{"n":2}']
        assert not protocol._library_reads
        await ended(protocol)

    asyncio.run(main())


def test_a_long_frame_in_pieces_is_left_to_the_librarys_buffer() -> None:
    """The fast reading keeps a frame that comes in pieces by adding each piece to a copy of
    the start: past ``PARTIAL_MAX`` bytes it gives that frame to the library's buffer (a
    frame of 60 KB sent in 100-byte pieces would otherwise cost 18 MB of copies), up to the
    frame's end and no further, and reads the next frames itself again; a short frame in
    pieces stays on the fast path."""

    async def main() -> None:
        protocol, _, accepted = opened()
        await asyncio.wait_for(accepted.wait(), 5)
        short = client_text('{"type":"sync"}')
        for n in range(0, len(short), 3):
            protocol.data_received(short[n : n + 3])
        assert protocol.queue.get_nowait()["text"] == '{"type":"sync"}'
        assert not protocol._library_reads
        text = "x" * 60_000
        long = masked(Opcode.TEXT, text.encode())
        protocol.data_received(long[:100])
        assert protocol._library_frame_left == len(long) - 100 and not protocol._partial
        # the frame's last piece comes with the start of the next one
        rest = long[100:] + short[:5]
        for n in range(0, len(rest), 100):
            protocol.data_received(rest[n : n + 100])
        assert protocol.queue.get_nowait()["text"] == text
        assert protocol._library_frame_left == 0 and protocol._partial == short[:5]
        assert not protocol.conn.reader.buffer  # (the library's reading ended with the frame)
        protocol.data_received(short[5:])
        assert protocol.queue.get_nowait()["text"] == '{"type":"sync"}'
        assert not protocol._library_reads
        await ended(protocol)

    asyncio.run(main())
