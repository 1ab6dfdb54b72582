using System.Diagnostics.Metrics;
using System.Runtime.CompilerServices;
using ConcurrencySandbox.Contracts.Telemetry;

namespace ConcurrencySandbox.Experiments.Telemetry;

/// <summary>
/// The sandbox's own meter, published beside the runtime's <c>System.Runtime</c> meter: the experiments
/// count what they are doing, the telemetry (and <c>dotnet-counters monitor --counters ConcurrencySandbox</c>) reads it.
/// Static, as the runtime's own meters are: the counts are process-wide like the ThreadPool they sit beside.
/// Names and units follow the OpenTelemetry semantic conventions (lower-case, dot-separated, "{unit}" annotations).
/// Each experiment declares its instruments in its own folder, in a static class marked
/// <see cref="SandboxInstrumentsAttribute"/> (<c>Work/WorkInstruments</c>, <c>Contention/ContentionInstruments</c>, ...);
/// the meter keeps the list, so the telemetry reads every instrument without naming one.
/// </summary>
public static class SandboxMeter
{
    public const string Name = "ConcurrencySandbox";

    private static readonly Meter Meter = new(Name);
    private static readonly Lock Gate = new();

    // Replaced whole when an instrument is declared, so a reader takes names and counts that match without a lock.
    private static volatile Declared _declared = new([], []);
    private static volatile bool _published;

    /// <summary>
    /// Declares every experiment's instruments now, before any experiment runs, so the meter's listeners and the
    /// telemetry see them all from the start; call it before reading or listening.
    /// </summary>
    public static void PublishInstruments()
    {
        if (_published)
        {
            return;
        }

        // Outside any lock: a slice's static constructor declares its instruments through Declare.
        foreach (var type in typeof(SandboxMeter).Assembly.GetTypes().Where(t => t.IsDefined(typeof(SandboxInstrumentsAttribute), inherit: false)))
        {
            RuntimeHelpers.RunClassConstructor(type.TypeHandle);
        }

        _published = true;
    }

    /// <summary>The counts now, as the instruments publish them, read without a listener's per-instrument allocation.</summary>
    internal static SandboxTelemetry Read()
    {
        PublishInstruments();
        var (names, counts) = _declared;
        Span<long> values = stackalloc long[counts.Length];
        for (var i = 0; i < counts.Length; i++)
        {
            values[i] = counts[i].Value;
        }

        return new SandboxTelemetry(names, values);
    }

    /// <summary>An instrument that counts what is in progress now; each experiment declares its own in its folder.</summary>
    internal static SandboxCount UpDownCounter(string name, string unit, string description)
    {
        var count = Declare(name);
        Meter.CreateObservableUpDownCounter(name, () => count.Value, unit, description);
        return count;
    }

    /// <summary>An instrument that only grows.</summary>
    internal static SandboxCount Counter(string name, string unit, string description)
    {
        var count = Declare(name);
        Meter.CreateObservableCounter(name, () => count.Value, unit, description);
        return count;
    }

    private static SandboxCount Declare(string name)
    {
        var count = new SandboxCount(name);
        lock (Gate)
        {
            var (names, counts) = _declared;
            if (counts.Length == SandboxTelemetry.Capacity)
            {
                throw new InvalidOperationException($"'{name}' would be the sandbox meter's instrument number {counts.Length + 1}; the telemetry carries at most {SandboxTelemetry.Capacity} (SandboxTelemetry.Capacity).");
            }

            // Ordered by name, so the telemetry lists them the same way whichever slice declared first.
            var declared = counts.Append(count).OrderBy(c => c.InstrumentName, StringComparer.Ordinal).ToArray();
            _declared = new Declared([.. declared.Select(c => c.InstrumentName)], declared);
        }

        return count;
    }

    private sealed record Declared(string[] Names, SandboxCount[] Counts);
}

/// <summary>Marks an experiment's static class of <see cref="SandboxMeter"/> instruments, so the meter declares them at start-up.</summary>
[AttributeUsage(AttributeTargets.Class, Inherited = false)]
internal sealed class SandboxInstrumentsAttribute : Attribute;

/// <summary>One count behind an observable instrument of the <see cref="SandboxMeter"/>.</summary>
internal sealed class SandboxCount(string instrumentName)
{
    private long _value;

    public string InstrumentName => instrumentName;

    public long Value => Interlocked.Read(ref _value);

    public void Increment() => Interlocked.Increment(ref _value);

    public void Decrement() => Interlocked.Decrement(ref _value);
}
