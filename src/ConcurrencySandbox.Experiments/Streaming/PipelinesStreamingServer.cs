using System.IO.Pipelines;
using System.Net.Sockets;

namespace ConcurrencySandbox.Experiments.Streaming;

/// <summary>
/// Today's idiom: the ticking thread writes each frame into a per-connection Pipe (segments from one shared block pool), and one
/// long-lived loop per connection drains it with Socket.SendAsync(ReadOnlyMemory), whose ValueTask is backed by a
/// cached, reused awaitable. Nothing is allocated per message once the connection is warm. The reader is resumed
/// inline by the flush, so a frame goes to the socket on the ticking thread instead of waking a pool thread per
/// message; only a send the socket cannot take at once carries on where the socket completes it.
/// </summary>
internal sealed class PipelinesStreamingServer(StreamingServerSettings settings) : StreamingServer(settings)
{
    private const int MinBlockBytes = 4096;

    // The server bounds the queue itself (QueueMessages), so the pipe never makes the ticking thread wait.
    private readonly PipeOptions _options = new(
        pool: new BlockMemoryPool(Math.Max(MinBlockBytes, settings.FrameBytes)),
        pauseWriterThreshold: 0,
        resumeWriterThreshold: 0,
        readerScheduler: PipeScheduler.Inline,
        writerScheduler: PipeScheduler.Inline,
        minimumSegmentSize: Math.Max(MinBlockBytes, settings.FrameBytes),
        useSynchronizationContext: false);

    internal override StreamingServerConnection Open(Socket socket, int slot) => new Connection(this, socket, slot, _options);

    private sealed class Connection : StreamingServerConnection
    {
        private readonly Pipe _pipe;

        public Connection(StreamingServer server, Socket socket, int slot, PipeOptions options)
            : base(server, socket, slot)
        {
            _pipe = new Pipe(options);
            _ = DrainAsync();
        }

        public override void Retire()
        {
            base.Retire();
            _pipe.Reader.CancelPendingRead();
        }

        protected override void Send(long sequence)
        {
            var writer = _pipe.Writer;
            StreamProtocol.WriteFrame(writer.GetSpan(FrameBytes)[..FrameBytes], sequence);
            writer.Advance(FrameBytes);

            // Completes synchronously: the pipe never pauses the writer (pauseWriterThreshold 0).
            writer.FlushAsync().GetAwaiter().GetResult();
        }

        private async Task DrainAsync()
        {
            var reader = _pipe.Reader;
            long nextSequence = 0;
            try
            {
                while (true)
                {
                    var result = await reader.ReadAsync().ConfigureAwait(false);
                    var buffer = result.Buffer;
                    foreach (var segment in buffer)
                    {
                        for (var sent = 0; sent < segment.Length;)
                        {
                            sent += await Socket.SendAsync(segment[sent..], SocketFlags.None).ConfigureAwait(false);
                        }
                    }

                    // The writer flushes whole frames only, so the buffer holds a whole number of them.
                    for (var frames = buffer.Length / FrameBytes; frames > 0; frames--)
                    {
                        Server.OnSent(this, nextSequence++);
                    }

                    reader.AdvanceTo(buffer.End);
                    if (result.IsCompleted || result.IsCanceled)
                    {
                        break;
                    }
                }
            }
            catch (Exception exception) when (exception is SocketException or ObjectDisposedException)
            {
                Server.OnFailed(this);
            }
            finally
            {
                await reader.CompleteAsync().ConfigureAwait(false);
            }
        }
    }
}
