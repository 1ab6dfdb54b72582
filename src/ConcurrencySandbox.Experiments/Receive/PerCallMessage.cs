namespace ConcurrencySandbox.Experiments.Receive;

/// <summary>
/// A message as a per-call receive API hands it out (clrzmq's ZmqMsg in seed 002): a new object and a new buffer
/// for every receive, closed by Dispose; reading it after that is an error, as with a closed native message.
/// </summary>
internal sealed class PerCallMessage(int sizeBytes) : IDisposable
{
    private byte[]? _data = new byte[sizeBytes];

    public byte[] Data => _data ?? throw new ObjectDisposedException(nameof(PerCallMessage));

    public void Dispose() => _data = null;
}
