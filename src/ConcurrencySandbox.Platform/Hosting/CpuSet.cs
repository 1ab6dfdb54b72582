using System.Diagnostics;
using System.Globalization;

namespace ConcurrencySandbox.Platform.Hosting;

/// <summary>The logical cpus a child process is pinned to (<c>taskset -c</c>), in ascending order without repeats.</summary>
public sealed class CpuSet
{
    private CpuSet(IReadOnlyList<int> cpus) => Cpus = cpus;

    public IReadOnlyList<int> Cpus { get; }

    public int Count => Cpus.Count;

    /// <summary>Cpus 0..<paramref name="count"/>-1.</summary>
    public static CpuSet FirstCores(int count) => Of(Enumerable.Range(0, count));

    public static CpuSet Of(IEnumerable<int> cpus)
    {
        var sorted = cpus.Distinct().Order().ToList();
        if (sorted.Count == 0 || sorted[0] < 0)
        {
            throw new ArgumentException("a cpu set needs at least one cpu, none negative", nameof(cpus));
        }

        return new(sorted);
    }

    /// <summary>A list such as <c>0</c>, <c>1,3</c> or <c>0-2,5</c>; null when it is not one.</summary>
    public static CpuSet? TryParse(string? text)
    {
        var cpus = new List<int>();
        foreach (var part in (text ?? "").Split(','))
        {
            var bounds = part.Trim().Split('-');
            if (bounds.Length is not (1 or 2) || !TryCpu(bounds[0], out var from))
            {
                return null;
            }

            var to = from;
            if (bounds.Length == 2 && (!TryCpu(bounds[1], out to) || to < from))
            {
                return null;
            }

            cpus.AddRange(Enumerable.Range(from, to - from + 1));
        }

        return new(cpus.Distinct().Order().ToList());
    }

    /// <summary>The cpus this process may run on (its affinity), falling back to 0..ProcessorCount-1 where that cannot be read.</summary>
    public static CpuSet OfThisProcess()
    {
        if (OperatingSystem.IsLinux() || OperatingSystem.IsWindows())
        {
            using var self = Process.GetCurrentProcess();
            var mask = (ulong)(long)self.ProcessorAffinity;
            var cpus = Enumerable.Range(0, 64).Where(cpu => (mask & (1UL << cpu)) != 0).ToList();
            if (cpus.Count > 0)
            {
                return new(cpus);
            }
        }

        return FirstCores(Environment.ProcessorCount);
    }

    /// <summary>Whether <c>taskset</c> (util-linux), which does the pinning, is on the PATH.</summary>
    public static bool CanPin { get; } = (System.Environment.GetEnvironmentVariable("PATH") ?? "")
        .Split(Path.PathSeparator, StringSplitOptions.RemoveEmptyEntries)
        .Any(folder => File.Exists(Path.Combine(folder, "taskset")));

    public bool Contains(CpuSet other) => other.Cpus.All(Cpus.Contains);

    public bool Overlaps(CpuSet other) => other.Cpus.Any(Cpus.Contains);

    /// <summary>The cpus of this set that are not in <paramref name="other"/>, or null when none are left.</summary>
    public CpuSet? Except(CpuSet other) => Cpus.Except(other.Cpus).ToList() is { Count: > 0 } rest ? new(rest) : null;

    /// <summary>The list as taskset and the reports write it: <c>0-2,5</c>.</summary>
    public override string ToString()
    {
        var ranges = new List<string>();
        for (var i = 0; i < Cpus.Count;)
        {
            var end = i;
            while (end + 1 < Cpus.Count && Cpus[end + 1] == Cpus[end] + 1)
            {
                end++;
            }

            ranges.Add(end == i ? Text(Cpus[i]) : $"{Text(Cpus[i])}-{Text(Cpus[end])}");
            i = end + 1;
        }

        return string.Join(',', ranges);
    }

    private static string Text(int cpu) => cpu.ToString(CultureInfo.InvariantCulture);

    private static bool TryCpu(string text, out int cpu) =>
        int.TryParse(text.Trim(), NumberStyles.None, CultureInfo.InvariantCulture, out cpu) && cpu < 4096;
}
