using System.Diagnostics;
using System.Net;
using System.Net.Sockets;
using System.Text;
using ConcurrencySandbox.LoadTests.Engine;

namespace ConcurrencySandbox.LoadTests.Tests;

/// <summary>
/// The keep-alive client's requests go out in bursts, as wrk's event loop sends them: queued, then sent together when
/// the batch's bell is heard, every write of a flush on the wire before any continuation runs.
/// </summary>
public class SendBatchTests
{
    private const int Attempts = 500;

    [Fact]
    public async Task EveryQueuedRequestReachesTheServerWholeAndItsWriteCompletes()
    {
        await using var pair = await ConnectedPairs.OpenAsync(3);
        using var batch = new SendBatch();

        var writes = pair.Clients.Select((client, i) => client.WriteAsync(Request(i), batch).AsTask()).ToArray();
        await Task.WhenAll(writes);

        for (var i = 0; i < pair.Clients.Length; i++)
        {
            Assert.Equal(Encoding.ASCII.GetString(Request(i)), await pair.ReadAtServerAsync(i, Request(i).Length));
        }

        Assert.InRange(batch.Flushes, 1, pair.Clients.Length);
    }

    [Fact]
    public async Task RequestsQueuedWhileAFlushRunsGoOutTogetherInTheNextFlush()
    {
        await using var pair = await ConnectedPairs.OpenAsync(3);
        using var batch = new SendBatch();
        var judged = 0;
        // The first write's continuation runs inside its flush unless the flush ended before the test awaited it (then
        // it runs on the test's thread, and what it queues may go out in two flushes): try up to Attempts times for 3
        // judged flushes. Which thread ran it says nothing: a flush may run on the thread the test just gave back.
        for (var attempt = 0; attempt < Attempts && judged < 3; attempt++)
        {
            var (flushesBefore, queuedInFlush, later) = await QueueTwoMoreWhenWrittenAsync(pair.Clients[0].WriteAsync(Request(0), batch), batch, pair);
            await Task.WhenAll(later);
            if (queuedInFlush)
            {
                // The first write's continuation ran inside its flush: the two queued there shared the next one.
                Assert.Equal(flushesBefore + 1, batch.Flushes);
                judged++;
            }
        }

        Assert.True(judged > 0, $"no first write's continuation ran inside its flush in {Attempts} attempts");
        for (var i = 0; i < pair.Clients.Length; i++)
        {
            Assert.NotEmpty(await pair.ReadAtServerAsync(i, Request(i).Length));
        }
    }

    [Fact]
    public async Task AWriteOnAClosedConnectionFailsInsteadOfHanging()
    {
        await using var pair = await ConnectedPairs.OpenAsync(1);
        using var batch = new SendBatch();
        pair.Clients[0].Dispose();

        await Assert.ThrowsAsync<ObjectDisposedException>(() => pair.Clients[0].WriteAsync(Request(0), batch).AsTask());
    }

    [Fact]
    public async Task QueueingOnADisposedBatchThrows()
    {
        await using var pair = await ConnectedPairs.OpenAsync(1);
        var batch = new SendBatch();
        batch.Dispose();

        var error = await Record.ExceptionAsync(() => pair.Clients[0].WriteAsync(Request(0), batch).AsTask());

        Assert.IsType<ObjectDisposedException>(error);
    }

    private static byte[] Request(int i) => Encoding.ASCII.GetBytes($"GET /{i} HTTP/1.1\r\nHost: test\r\n\r\n");

    /// <summary>
    /// Awaits <paramref name="first"/> without a context (so its continuation runs where the write completed) and there
    /// queues clients 1 and 2; says whether that was inside the flush, i.e. with the batch's listening loop on the stack.
    /// </summary>
    private static async Task<(int FlushesBefore, bool QueuedInFlush, Task[] Later)> QueueTwoMoreWhenWrittenAsync(ValueTask first, SendBatch batch, ConnectedPairs pair)
    {
        await first.ConfigureAwait(false);
        var flushes = batch.Flushes;
        var inFlush = new StackTrace().GetFrames().Any(f => f.GetMethod()?.DeclaringType?.DeclaringType == typeof(SendBatch));
        return (flushes, inFlush, [pair.Clients[1].WriteAsync(Request(1), batch).AsTask(), pair.Clients[2].WriteAsync(Request(2), batch).AsTask()]);
    }

    /// <summary>Client connections of the load client's own kind, each accepted by a loopback listener whose end the test reads.</summary>
    private sealed class ConnectedPairs : IAsyncDisposable
    {
        private ConnectedPairs(Http11Connection[] clients, Socket[] servers)
        {
            Clients = clients;
            Servers = servers;
        }

        public Http11Connection[] Clients { get; }

        private Socket[] Servers { get; }

        public static async Task<ConnectedPairs> OpenAsync(int count)
        {
            using var listener = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
            listener.Bind(new IPEndPoint(IPAddress.Loopback, 0));
            listener.Listen(count);
            var clients = new Http11Connection[count];
            var servers = new Socket[count];
            for (var i = 0; i < count; i++)
            {
                clients[i] = new Http11Connection();
                await clients[i].ConnectAsync(listener.LocalEndPoint!);
                servers[i] = await listener.AcceptAsync();
            }

            return new ConnectedPairs(clients, servers);
        }

        /// <summary>Reads everything client <paramref name="i"/> sent until <paramref name="atLeast"/> bytes arrived (bounded by 10 s).</summary>
        public async Task<string> ReadAtServerAsync(int i, int atLeast)
        {
            using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(10));
            var received = new MemoryStream();
            var buffer = new byte[4096];
            while (received.Length < atLeast)
            {
                var n = await Servers[i].ReceiveAsync(buffer, SocketFlags.None, timeout.Token);
                if (n == 0)
                {
                    break;
                }

                received.Write(buffer, 0, n);
            }

            return Encoding.ASCII.GetString(received.ToArray());
        }

        public ValueTask DisposeAsync()
        {
            foreach (var client in Clients)
            {
                client.Dispose();
            }

            foreach (var server in Servers)
            {
                server.Dispose();
            }

            return ValueTask.CompletedTask;
        }
    }
}
