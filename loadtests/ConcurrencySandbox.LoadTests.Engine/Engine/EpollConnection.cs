using System.Runtime.InteropServices;

namespace ConcurrencySandbox.LoadTests.Engine;

/// <summary>
/// One non-blocking TCP connection of an <see cref="EpollLoop"/>, touched only by the loop's thread: its socket, the
/// request it carries (and how much of it is on the wire) and the answer being read.
/// </summary>
internal sealed unsafe class EpollConnection(int fd, ulong token, bool connecting)
{
    public int Fd { get; } = fd;

    /// <summary>What its epoll events carry: its slot in the loop's table and which connection of that slot it is.</summary>
    public ulong Token { get; } = token;

    public int Slot => (int)(uint)Token;

    /// <summary>True until the non-blocking connect has finished.</summary>
    public bool Connecting { get; set; } = connecting;

    public bool Closed { get; private set; }

    /// <summary>True once it carried a whole answer: a failure before the next answer's first byte is the server closing it while idle.</summary>
    public bool Reused { get; set; }

    public Http11AnswerReader Reader { get; } = new();

    /// <summary>The request it carries, null while idle.</summary>
    public LoopExchange? Exchange { get; private set; }

    private int _sent;

    public void Carry(LoopExchange exchange)
    {
        Exchange = exchange;
        _sent = 0;
        Reader.Begin(exchange.Body);
    }

    /// <summary>Ends the request it carried (the connection idle or closed) and returns it.</summary>
    public LoopExchange? Release()
    {
        var exchange = Exchange;
        Exchange = null;
        return exchange;
    }

    public bool Unsent => Exchange is { } exchange && _sent < exchange.Request.Length;

    /// <summary>Sends what is left of the request: 0 when it is all on the wire or the socket's buffer is full (the rest goes on the next EPOLLOUT), else the error.</summary>
    public int SendRest()
    {
        var request = Exchange!.Request;
        while (_sent < request.Length)
        {
            nint sent;
            fixed (byte* rest = &request[_sent])
            {
                sent = Libc.Send(Fd, rest, request.Length - _sent, Libc.MsgNoSignal);
            }

            if (sent < 0)
            {
                var errno = Marshal.GetLastPInvokeError();
                if (errno == Libc.EIntr)
                {
                    continue;
                }

                return errno == Libc.EAgain ? 0 : errno;
            }

            _sent += (int)sent;
        }

        return 0;
    }

    /// <summary>One receive into the reader's room: the bytes received (0: the server closed), or minus the error (-EAGAIN: nothing to read).</summary>
    public int Receive(out int roomBytes)
    {
        var room = Reader.Room();
        roomBytes = room.Count;
        while (true)
        {
            nint received;
            fixed (byte* into = room.AsSpan())
            {
                received = Libc.Recv(Fd, into, room.Count, 0);
            }

            if (received >= 0)
            {
                Reader.Received((int)received);
                return (int)received;
            }

            var errno = Marshal.GetLastPInvokeError();
            if (errno != Libc.EIntr)
            {
                return -errno;
            }
        }
    }

    /// <summary>The outcome of the non-blocking connect: 0, or its error.</summary>
    public int ConnectError()
    {
        int error = 0, bytes = sizeof(int);
        return Libc.GetSockOpt(Fd, Libc.SolSocket, Libc.SoError, &error, &bytes) < 0 ? Marshal.GetLastPInvokeError() : error;
    }

    /// <summary>Closes the socket (which also takes it out of its epoll set).</summary>
    public void Close()
    {
        if (!Closed)
        {
            Closed = true;
            Libc.Close(Fd);
        }
    }
}
