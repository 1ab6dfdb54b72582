using ConcurrencySandbox.Contracts.Receive;

namespace ConcurrencySandbox.Contracts.Receive;

/// <summary>One receive run, measured on the receiving thread between the first receive and the last.</summary>
/// <param name="OutOfOrderMessages">Messages whose sequence number was not the next one expected (lost, repeated or reordered).</param>
/// <param name="Timeouts">Receives that timed out before their message arrived and were tried again.</param>
/// <param name="CpuClock">Which clock <paramref name="CpuNsPerReceive"/> was read from.</param>
/// <param name="AllocationCounter">Which counter <paramref name="AllocatedBytesPerReceive"/> was read from.</param>
/// <param name="Gen0Collections">Gen 0 collections in the whole process during the run.</param>
public sealed record ReceiveResult(
    string Variant,
    ReceivePlan Plan,
    long ReceivedMessages,
    long OutOfOrderMessages,
    long Timeouts,
    string CpuClock,
    string AllocationCounter,
    double CpuNsPerReceive,
    double AllocatedBytesPerReceive,
    double WallNsPerReceive,
    double CpuMs,
    long AllocatedBytes,
    double WallMs,
    int Gen0Collections);
