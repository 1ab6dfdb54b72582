using System.Net;
using System.Net.Sockets;

namespace ConcurrencySandbox.Api.Control;

/// <summary>
/// One client connection of the control listener, driven only by its readiness loop thread (a handler thread sets
/// <see cref="Response"/> and hands it back through a queue). Non-blocking socket, one request, then the answer,
/// then the write side is shut and what the client still sends is read and dropped until it closes, so the answer
/// is not lost to a reset. Every phase has a deadline; past it the connection is closed.
/// </summary>
internal sealed class ControlConnection(Socket socket, long sequence, long nowTimestamp, long deadlineTicks)
{
    private static readonly byte[] Continue = "HTTP/1.1 100 Continue\r\n\r\n"u8.ToArray();
    private readonly ControlRequestReader _reader = new();
    private int _written;
    private bool _continueSent;

    public enum Phase
    {
        /// <summary>Waiting for (the rest of) the request: idle until it is complete.</summary>
        Reading,

        /// <summary>A handler thread is answering it.</summary>
        Handling,

        /// <summary>Sending the answer.</summary>
        Writing,

        /// <summary>Answered; reading and dropping what the client still sends until it closes. Idle.</summary>
        Draining,

        Closed,
    }

    public Socket Socket { get; } = socket;

    /// <summary>The order of acceptance: among connections equally idle, the one accepted first goes first.</summary>
    public long Sequence { get; } = sequence;

    public IPAddress? Remote { get; } = (socket.RemoteEndPoint as IPEndPoint)?.Address;

    public Phase State { get; private set; } = Phase.Reading;

    /// <summary>When the current phase must be over (a Stopwatch timestamp): the whole request, then the answer's sending and the drain, the same time each; none while a handler runs.</summary>
    public long DeadlineTimestamp { get; private set; } = nowTimestamp + deadlineTicks;

    /// <summary>When the client last sent bytes (or connected): the least recent idle connection is evicted first.</summary>
    public long LastActivityTimestamp { get; private set; } = nowTimestamp;

    /// <summary>The whole request once read; handed to a handler thread.</summary>
    public ControlHttpRequest? Request { get; private set; }

    /// <summary>The answer's bytes, set by the handler thread before it hands the connection back.</summary>
    public byte[]? Response { get; set; }

    public bool IsIdle => State is Phase.Reading or Phase.Draining;

    public bool WantsRead => State is Phase.Reading or Phase.Draining;

    public bool WantsWrite => State == Phase.Writing;

    /// <summary>
    /// Reads what has arrived in one bulk receive. True when the request is now complete (the caller hands it to a
    /// handler); a malformed or over-size request is answered with <paramref name="problem"/>'s bytes here.
    /// </summary>
    public bool OnReadable(long nowTimestamp, Func<BadControlRequestException, byte[]> problem)
    {
        if (State == Phase.Draining)
        {
            Span<byte> discard = stackalloc byte[4096];
            if (Socket.Receive(discard, SocketFlags.None, out var drainError) == 0 || drainError is not (SocketError.Success or SocketError.WouldBlock))
            {
                Close();
            }

            return false;
        }

        try
        {
            var received = Socket.Receive(_reader.FreeSpace.Span, SocketFlags.None, out var error);
            if (error == SocketError.WouldBlock)
            {
                return false;
            }

            if (received == 0 || error != SocketError.Success)
            {
                Close(); // the client left before sending a whole request
                return false;
            }

            LastActivityTimestamp = nowTimestamp;
            _reader.Advance(received);
            Request = _reader.TryRead();
            if (Request is null)
            {
                SendContinueOnce();
                return false;
            }

            State = Phase.Handling;
            DeadlineTimestamp = long.MaxValue; // our own handler's time is not the client's to limit
            return true;
        }
        catch (BadControlRequestException e)
        {
            Respond(problem(e), nowTimestamp);
            return false;
        }
    }

    /// <summary>Starts sending an answer: the one a handler made, or a refusal made on the loop.</summary>
    public void Respond(byte[] response, long nowTimestamp)
    {
        Response = response;
        _written = 0;
        State = Phase.Writing;
        DeadlineTimestamp = nowTimestamp + deadlineTicks;
        OnWritable(nowTimestamp);
    }

    /// <summary>Sends as much of the answer as the socket takes now; once all is sent, shuts the write side and drains.</summary>
    public void OnWritable(long nowTimestamp)
    {
        var sent = Socket.Send(Response.AsSpan(_written), SocketFlags.None, out var error);
        if (error is not (SocketError.Success or SocketError.WouldBlock))
        {
            Close();
            return;
        }

        _written += sent;
        if (_written == Response!.Length)
        {
            Socket.Shutdown(SocketShutdown.Send);
            State = Phase.Draining;
            DeadlineTimestamp = nowTimestamp + deadlineTicks;
        }
    }

    /// <summary>Past the deadline: a request still arriving gets a 408 if the socket takes it at once; then closed.</summary>
    public void Expire(byte[] timeout)
    {
        if (State == Phase.Reading)
        {
            Socket.Send(timeout, SocketFlags.None, out _);
        }

        Close();
    }

    public void Close()
    {
        State = Phase.Closed;
        Socket.Dispose();
    }

    // "Expect: 100-continue" clients wait for this before sending the body.
    private void SendContinueOnce()
    {
        if (_reader.ExpectsContinue && !_continueSent)
        {
            _continueSent = true;
            Socket.Send(Continue, SocketFlags.None, out _);
        }
    }
}
