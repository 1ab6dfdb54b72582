namespace ConcurrencySandbox.Experiments.Work;

/// <summary>The bodies of the work units. Loops run in chunks so cancellation is seen within a few milliseconds.</summary>
internal static class WorkLoops
{
    private const long CountChunk = 1 << 20;
    private const int SpinChunk = 10_000;

    /// <summary>Counts to <paramref name="cycles"/>; the sum is returned so the loop is observable and cannot be elided.</summary>
    public static long Count(long cycles, CancellationToken cancellationToken)
    {
        long sum = 0;
        for (long done = 0; done < cycles;)
        {
            var end = Math.Min(cycles, done + CountChunk);
            for (var i = done; i < end; i++)
            {
                sum += i;
            }

            done = end;
            cancellationToken.ThrowIfCancellationRequested();
        }

        return sum;
    }

    public static long Spin(long iterations, CancellationToken cancellationToken)
    {
        for (long done = 0; done < iterations; done += SpinChunk)
        {
            Thread.SpinWait((int)Math.Min(SpinChunk, iterations - done));
            cancellationToken.ThrowIfCancellationRequested();
        }

        return iterations;
    }

    /// <summary>Blocks the thread like Thread.Sleep, but wakes when the request is abandoned.</summary>
    public static long Sleep(long milliseconds, CancellationToken cancellationToken)
    {
        cancellationToken.WaitHandle.WaitOne(TimeSpan.FromMilliseconds(milliseconds));
        cancellationToken.ThrowIfCancellationRequested();
        return milliseconds;
    }

    public static Task DelayAsync(long milliseconds, CancellationToken cancellationToken) =>
        Task.Delay(TimeSpan.FromMilliseconds(milliseconds), cancellationToken);
}
