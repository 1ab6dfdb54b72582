namespace ConcurrencySandbox.Tests.Hosting;

/// <summary>A clock that moves only when a test advances it, for code that takes its time from a <see cref="TimeProvider"/>.</summary>
public sealed class ManualTimeProvider : TimeProvider
{
    private long _ticks = TimeSpan.TicksPerDay;

    public override long TimestampFrequency => TimeSpan.TicksPerSecond;

    public override long GetTimestamp() => Interlocked.Read(ref _ticks);

    public override DateTimeOffset GetUtcNow() => new(new DateTime(2026, 1, 1, 0, 0, 0, DateTimeKind.Utc).AddTicks(GetTimestamp()));

    public void Advance(TimeSpan by) => Interlocked.Add(ref _ticks, by.Ticks);
}
