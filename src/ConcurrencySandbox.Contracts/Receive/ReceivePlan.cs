using ConcurrencySandbox.Contracts.Receive;

namespace ConcurrencySandbox.Contracts.Receive;

/// <summary>What one receive run does: the sender writes <paramref name="Messages"/> messages, the receiver takes each with a timeout.</summary>
/// <param name="MessageBytes">Size of every message; its first 8 bytes carry the sequence number.</param>
/// <param name="TimeoutMs">Each receive gives up after this long and is tried again (counted as a timeout).</param>
/// <param name="IntervalMs">The sender sleeps this long between messages; 0 sends them back to back.</param>
public sealed record ReceivePlan(int Messages, int MessageBytes, int TimeoutMs, int IntervalMs)
{
    /// <summary>Bytes at the start of each message that hold its sequence number.</summary>
    public const int SequenceBytes = sizeof(long);

    public void Validate()
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(Messages, 1, nameof(Messages));
        ArgumentOutOfRangeException.ThrowIfLessThan(MessageBytes, SequenceBytes, nameof(MessageBytes));
        ArgumentOutOfRangeException.ThrowIfLessThan(TimeoutMs, 1, nameof(TimeoutMs));
        ArgumentOutOfRangeException.ThrowIfNegative(IntervalMs, nameof(IntervalMs));
    }
}
