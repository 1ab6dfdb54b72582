using System.Net.Sockets;

namespace ConcurrencySandbox.Experiments.Streaming;

/// <summary>
/// Seed 001's allocation-heavy pattern in today's idiom: every message gets a new buffer, a new async method (its
/// own task and state machine) chained after the previous send so the order holds, and a Task-returning send.
/// </summary>
internal sealed class AllocatingStreamingServer(StreamingServerSettings settings) : StreamingServer(settings)
{
    internal override StreamingServerConnection Open(Socket socket, int slot) => new Connection(this, socket, slot);

    private sealed class Connection(StreamingServer server, Socket socket, int slot) : StreamingServerConnection(server, socket, slot)
    {
        private Task _previousSend = Task.CompletedTask;

        protected override void Send(long sequence)
        {
            var frame = new byte[FrameBytes];
            StreamProtocol.WriteFrame(frame, sequence);
            _previousSend = SendAfterAsync(_previousSend, frame, sequence);
        }

        private async Task SendAfterAsync(Task previous, byte[] frame, long sequence)
        {
            await previous.ConfigureAwait(false);
            try
            {
                await Socket.SendAsync(new ArraySegment<byte>(frame), SocketFlags.None).ConfigureAwait(false);
                Server.OnSent(this, sequence);
            }
            catch (Exception exception) when (exception is SocketException or ObjectDisposedException)
            {
                Server.OnFailed(this);
            }
        }
    }
}
