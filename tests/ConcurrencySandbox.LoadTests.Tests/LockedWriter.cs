namespace ConcurrencySandbox.LoadTests.Tests;

/// <summary>
/// A terminal for tests that another thread writes to: every write and <see cref="ToString"/> under one lock, and,
/// with <paramref name="open"/>, every write waits until it is set (a terminal that stopped reading).
/// </summary>
internal sealed class LockedWriter(ManualResetEventSlim? open = null) : StringWriter
{
    private readonly Lock _gate = new();

    /// <summary>A write is waiting for <c>open</c>.</summary>
    public bool Waiting { get; private set; }

    public override void Write(char value) => Write(value.ToString());

    public override void Write(char[] buffer, int index, int count) => Write(new string(buffer, index, count));

    public override void Write(string? value)
    {
        if (open is not null)
        {
            Waiting = !open.IsSet;
            open.Wait();
        }
        lock (_gate)
        {
            base.Write(value);
        }
    }

    public override string ToString()
    {
        lock (_gate)
        {
            return base.ToString();
        }
    }
}
