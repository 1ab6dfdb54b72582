using System.Diagnostics;
using Microsoft.Win32.SafeHandles;

namespace ConcurrencySandbox.Experiments.Telemetry;

/// <summary>The operating system's view of this process: its threads and its resident memory.</summary>
public readonly record struct ProcessStatReading(int OsThreadCount, long WorkingSetBytes);

/// <summary>
/// The one reader of the process's OS counters. On Linux it re-reads /proc/self/stat through a handle kept open into a
/// buffer of its own, so a reading allocates nothing: Process.Threads builds an object per thread and
/// Environment.WorkingSet goes through Process (about 3 KB a call), noise in the allocation experiments it would watch.
/// Elsewhere it falls back to <see cref="Process"/>, which allocates.
/// </summary>
public static class ProcessStat
{
    // /proc/[pid]/stat fields (man 5 proc), counted from 1: 20 num_threads, 24 rss in pages.
    private const int ThreadsField = 20;
    private const int ResidentPagesField = 24;

    private static readonly Lock Gate = new();
    private static readonly byte[] Buffer = new byte[4096];
    private static readonly SafeFileHandle? Stat = OpenStat();

    public static ProcessStatReading Read()
    {
        if (Stat is null)
        {
            using var process = Process.GetCurrentProcess();
            return new ProcessStatReading(process.Threads.Count, process.WorkingSet64);
        }

        lock (Gate)
        {
            // A read at offset 0 makes the kernel render the file afresh.
            var length = RandomAccess.Read(Stat, Buffer, fileOffset: 0);
            return Parse(Buffer.AsSpan(0, length), Environment.SystemPageSize);
        }
    }

    /// <summary>Reads the thread count and resident set from one /proc/[pid]/stat line.</summary>
    public static ProcessStatReading Parse(ReadOnlySpan<byte> statLine, int pageSizeBytes)
    {
        // The command name (field 2) is in parentheses and may hold spaces; fields are counted after its closing one.
        var rest = statLine[(statLine.LastIndexOf((byte)')') + 2)..];
        var threads = 0L;
        var residentPages = 0L;
        for (var field = 3; field <= ResidentPagesField && !rest.IsEmpty; field++)
        {
            var end = rest.IndexOf((byte)' ');
            var token = end < 0 ? rest : rest[..end];
            if (field == ThreadsField)
            {
                threads = ParseNumber(token);
            }
            else if (field == ResidentPagesField)
            {
                residentPages = ParseNumber(token);
            }

            rest = end < 0 ? [] : rest[(end + 1)..];
        }

        return new ProcessStatReading((int)threads, residentPages * pageSizeBytes);
    }

    private static long ParseNumber(ReadOnlySpan<byte> digits)
    {
        var value = 0L;
        foreach (var digit in digits)
        {
            value = (value * 10) + (digit - (byte)'0');
        }

        return value;
    }

    private static SafeFileHandle? OpenStat()
    {
        const string path = "/proc/self/stat";
        return OperatingSystem.IsLinux() && File.Exists(path) ? File.OpenHandle(path) : null;
    }
}
