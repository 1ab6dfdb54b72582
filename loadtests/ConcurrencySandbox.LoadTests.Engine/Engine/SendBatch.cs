using System.Net;
using System.Net.Sockets;

namespace ConcurrencySandbox.LoadTests.Engine;

/// <summary>
/// Puts the requests of a <see cref="KeepAliveHttpClient"/>'s connections on the wire in bursts, as wrk's event loop
/// does: a request is queued, not sent, and the first one queued rings a bell (a datagram to a loopback socket of the
/// same poll), so the queue is flushed when the poll comes round to the bell, after the answers it had already
/// picked up. Sent one at a time from each answer's continuation, the requests reached the server spread over the
/// client's processing of the answers, and the server's I/O thread was woken more often per request (0.25-0.27 times
/// against wrk's 0.21-0.23, docs/notebook/performance.md); the server then spent 3-12 % more CPU on each request.
/// A flush first sends every queued request, then runs what waited for each send, so nothing the continuations do
/// comes between two sends.
/// </summary>
internal sealed class SendBatch : IDisposable
{
    private static readonly byte[] Bell = [1];

    private readonly Socket _bell = new(AddressFamily.InterNetwork, SocketType.Dgram, ProtocolType.Udp);
    private readonly Socket _ringer = new(AddressFamily.InterNetwork, SocketType.Dgram, ProtocolType.Udp);
    private readonly Lock _lock = new();
    private List<Http11Connection> _queued = [];
    private List<Http11Connection> _flushing = [];

    // True from a ring until the flush it asked for takes the queue: at most one bell is ever unread, so none is dropped.
    private bool _rung;
    private bool _disposed;
    private int _flushes;

    public SendBatch()
    {
        _bell.Bind(new IPEndPoint(IPAddress.Loopback, 0));
        _ringer.Connect(_bell.LocalEndPoint!);
        _ = Task.Run(ListenAsync); // on the pool, not on the creator's SynchronizationContext (a test runner's worker threads)
    }

    /// <summary>How many flushes have sent requests so far: fewer than the requests sent when the bursts hold more than one.</summary>
    public int Flushes => Volatile.Read(ref _flushes);

    /// <summary>Queues <paramref name="connection"/>'s request for the next flush, ringing the bell when it is the first one queued since the last.</summary>
    public void Queue(Http11Connection connection)
    {
        bool ring;
        lock (_lock)
        {
            ObjectDisposedException.ThrowIf(_disposed, this);
            _queued.Add(connection);
            ring = !_rung;
            _rung = true;
        }

        if (ring)
        {
            _ringer.Send(Bell);
        }
    }

    public void Dispose()
    {
        lock (_lock)
        {
            _disposed = true;
        }

        _bell.Dispose();
        _ringer.Dispose();
    }

    private async Task ListenAsync()
    {
        var heard = new byte[Bell.Length];
        try
        {
            while (true)
            {
                await _bell.ReceiveAsync(heard, SocketFlags.None);
                lock (_lock)
                {
                    (_queued, _flushing) = (_flushing, _queued);
                    _rung = false;
                }

                foreach (var connection in _flushing)
                {
                    connection.SendQueued();
                }

                Interlocked.Increment(ref _flushes);
                foreach (var connection in _flushing)
                {
                    connection.CompleteQueued();
                }

                _flushing.Clear();
            }
        }
        catch (Exception e) when (e is ObjectDisposedException or SocketException)
        {
            // Disposed (or the bell broke): what is queued will never be sent, and nothing more may be queued.
            lock (_lock)
            {
                _disposed = true;
            }

            foreach (var connection in _queued)
            {
                connection.FailQueued(new ObjectDisposedException(nameof(KeepAliveHttpClient)));
            }
        }
    }
}
