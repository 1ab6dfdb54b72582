using System.Net.Sockets;

namespace ConcurrencySandbox.Experiments.Streaming;

/// <summary>
/// Seed 001's pool: one pinned block allocated at start, sliced into a ring of QueueMessages frames per connection
/// slot, and one SocketAsyncEventArgs per slot, reused for every send. Nothing is allocated per message.
/// </summary>
internal sealed class SaeaPooledStreamingServer : StreamingServer
{
    private readonly byte[] _block;
    private readonly SocketAsyncEventArgs[] _sends;

    public SaeaPooledStreamingServer(StreamingServerSettings settings)
        : base(settings)
    {
        _block = GC.AllocateUninitializedArray<byte>(checked(settings.MaxClients * settings.QueueMessages * settings.FrameBytes), pinned: true);
        _sends = new SocketAsyncEventArgs[settings.MaxClients];
        for (var slot = 0; slot < _sends.Length; slot++)
        {
            _sends[slot] = new SocketAsyncEventArgs();
            _sends[slot].Completed += Connection.OnCompleted;
        }
    }

    internal override StreamingServerConnection Open(Socket socket, int slot) => new Connection(this, socket, slot, _block, _sends[slot]);

    private sealed class Connection : StreamingServerConnection
    {
        private readonly Lock _gate = new();
        private readonly byte[] _block;
        private readonly int _ringOffset;
        private readonly int _ringFrames;
        private readonly SocketAsyncEventArgs _send;
        private int _head; // the next frame to send
        private int _count; // frames in the ring
        private int _sentOfHead; // bytes of the head frame already sent
        private long _headSequence;
        private bool _sending;
        private bool _retired;

        public Connection(StreamingServer server, Socket socket, int slot, byte[] block, SocketAsyncEventArgs send)
            : base(server, socket, slot)
        {
            _block = block;
            _ringFrames = server.Settings.QueueMessages;
            _ringOffset = slot * _ringFrames * FrameBytes;
            _send = send;
            _send.UserToken = this;
        }

        public override void Retire()
        {
            bool idle;
            lock (_gate)
            {
                _retired = true;
                idle = !_sending;
            }

            Socket.Dispose();
            if (idle)
            {
                Server.ReleaseSlot(Slot);
            }
        }

        protected override void Send(long sequence)
        {
            lock (_gate)
            {
                if (_retired)
                {
                    return; // the slot, and so this ring slice, may already belong to the next connection
                }

                var tail = (_head + _count) % _ringFrames;
                StreamProtocol.WriteFrame(_block.AsSpan(_ringOffset + (tail * FrameBytes), FrameBytes), sequence);
                _count++;
                if (_sending)
                {
                    return;
                }

                _sending = true;
            }

            SendLoop();
        }

        public static void OnCompleted(object? sender, SocketAsyncEventArgs send)
        {
            var connection = (Connection)send.UserToken!;
            if (connection.Completed())
            {
                connection.SendLoop();
            }
        }

        /// <summary>Sends while frames are queued; runs on one thread at a time (whoever set _sending).</summary>
        private void SendLoop()
        {
            while (true)
            {
                lock (_gate)
                {
                    if (_count == 0 || _retired)
                    {
                        StopSending();
                        return;
                    }

                    var offset = _ringOffset + (_head * FrameBytes) + _sentOfHead;
                    _send.SetBuffer(_block, offset, FrameBytes - _sentOfHead);
                }

                try
                {
                    if (Socket.SendAsync(_send))
                    {
                        return; // OnCompleted carries on
                    }
                }
                catch (ObjectDisposedException)
                {
                    Failed();
                    return;
                }

                if (!Completed())
                {
                    return;
                }
            }
        }

        /// <summary>Accounts for one finished send; false when the connection failed.</summary>
        private bool Completed()
        {
            if (_send.SocketError != SocketError.Success || _send.BytesTransferred == 0)
            {
                Failed();
                return false;
            }

            long sequence;
            lock (_gate)
            {
                _sentOfHead += _send.BytesTransferred;
                if (_sentOfHead < FrameBytes)
                {
                    return true;
                }

                _sentOfHead = 0;
                _head = (_head + 1) % _ringFrames;
                _count--;
                sequence = _headSequence++;
            }

            Server.OnSent(this, sequence);
            return true;
        }

        private void Failed()
        {
            lock (_gate)
            {
                StopSending();
            }

            Server.OnFailed(this);
        }

        /// <summary>Called under the gate; the last user of a retired connection gives its slot back.</summary>
        private void StopSending()
        {
            _sending = false;
            if (_retired)
            {
                Server.ReleaseSlot(Slot);
            }
        }
    }
}
