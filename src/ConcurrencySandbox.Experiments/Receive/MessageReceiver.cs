using System.Buffers.Binary;
using System.Diagnostics;
using System.Net.Sockets;
using ConcurrencySandbox.Contracts.Receive;

namespace ConcurrencySandbox.Experiments.Receive;

/// <summary>The receive loop itself: runs on the thread whose CPU time and allocations it reports.</summary>
internal static class MessageReceiver
{
    public const string AllocationCounter = "GC.GetAllocatedBytesForCurrentThread on the receiving thread";

    public static ReceiveResult Receive(Socket socket, ReceiveVariant variant, ReceivePlan plan, CancellationToken cancellationToken)
    {
        socket.Blocking = !variant.SpinsForTimeout;
        socket.ReceiveTimeout = variant.SpinsForTimeout ? 0 : plan.TimeoutMs;
        var buffer = variant.AllocatesPerCall ? null : new byte[plan.MessageBytes];
        var counts = new Counts();
        var gen0Before = GC.CollectionCount(0);

        var cpuBefore = ThreadCpuClock.Now();
        var allocatedBefore = GC.GetAllocatedBytesForCurrentThread();
        var wallStart = Stopwatch.GetTimestamp();
        for (var expected = 0L; expected < plan.Messages; expected++)
        {
            cancellationToken.ThrowIfCancellationRequested();
            if (buffer is null)
            {
                using var message = new PerCallMessage(plan.MessageBytes);
                ReceiveOne(socket, message.Data, variant, plan.TimeoutMs, expected, ref counts);
            }
            else
            {
                ReceiveOne(socket, buffer, variant, plan.TimeoutMs, expected, ref counts);
            }
        }

        var wall = Stopwatch.GetElapsedTime(wallStart);
        var allocatedBytes = GC.GetAllocatedBytesForCurrentThread() - allocatedBefore;
        var cpu = ThreadCpuClock.Now() - cpuBefore;
        return new ReceiveResult(
            variant.Name,
            plan,
            counts.Received,
            counts.OutOfOrder,
            counts.Timeouts,
            ThreadCpuClock.Name,
            AllocationCounter,
            cpu.TotalNanoseconds / plan.Messages,
            (double)allocatedBytes / plan.Messages,
            wall.TotalNanoseconds / plan.Messages,
            cpu.TotalMilliseconds,
            allocatedBytes,
            wall.TotalMilliseconds,
            GC.CollectionCount(0) - gen0Before);
    }

    private static void ReceiveOne(Socket socket, byte[] message, ReceiveVariant variant, int timeoutMs, long expected, ref Counts counts)
    {
        var received = 0;
        while (!(variant.SpinsForTimeout ? TrySpinReceive(socket, message, timeoutMs, ref received) : TryBlockingReceive(socket, message, ref received)))
        {
            counts.Timeouts++;
        }

        counts.Received++;
        if (BinaryPrimitives.ReadInt64LittleEndian(message) != expected)
        {
            counts.OutOfOrder++;
        }
    }

    /// <summary>The seed's after: the kernel waits (SO_RCVTIMEO), the thread sleeps until data or the timeout.</summary>
    private static bool TryBlockingReceive(Socket socket, byte[] message, ref int received)
    {
        while (received < message.Length)
        {
            var count = socket.Receive(message.AsSpan(received), SocketFlags.None, out var error);
            if (error is SocketError.TimedOut or SocketError.WouldBlock)
            {
                return false;
            }

            received += Checked(count, error);
        }

        return true;
    }

    /// <summary>The seed's before (clrzmq's timeout path): a Stopwatch per receive and SpinWait between non-blocking polls.</summary>
    private static bool TrySpinReceive(Socket socket, byte[] message, int timeoutMs, ref int received)
    {
        var stopwatch = Stopwatch.StartNew();
        var spinner = default(SpinWait);
        while (received < message.Length)
        {
            var count = socket.Receive(message.AsSpan(received), SocketFlags.None, out var error);
            if (error == SocketError.WouldBlock)
            {
                if (stopwatch.ElapsedMilliseconds >= timeoutMs)
                {
                    return false;
                }

                spinner.SpinOnce();
                continue;
            }

            received += Checked(count, error);
        }

        return true;
    }

    private static int Checked(int count, SocketError error)
    {
        if (error != SocketError.Success)
        {
            throw new SocketException((int)error);
        }

        return count > 0 ? count : throw new IOException("The sender closed the connection before every message arrived.");
    }

    private struct Counts
    {
        public long Received;
        public long OutOfOrder;
        public long Timeouts;
    }
}
