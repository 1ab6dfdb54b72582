using System.Buffers.Binary;
using System.Globalization;
using System.Net;

namespace ConcurrencySandbox.LoadTests.Diagnostics;

/// <summary>A TCP socket in the LISTEN state, as a row of Linux's /proc/net/tcp or /proc/net/tcp6 shows it.</summary>
internal sealed record ListeningSocket(IPAddress Address, int Port, int OwnerUid, long Inode)
{
    /// <summary>Whether a connection to a loopback address reaches it: bound to a loopback or to the any-address.</summary>
    public bool AcceptsLoopback =>
        IPAddress.IsLoopback(Address) || Address.Equals(IPAddress.Any) || Address.Equals(IPAddress.IPv6Any)
        || (Address.IsIPv4MappedToIPv6 && IPAddress.IsLoopback(Address.MapToIPv4()));
}

/// <summary>
/// Finds the process listening on a TCP port from Linux's /proc: the listening sockets' inodes in /proc/net/tcp and
/// /proc/net/tcp6 (state 0A), then the process with a descriptor linked to one of them (/proc/PID/fd/N -> socket:[INODE]).
/// Processes of other users are not readable to a non-root runner, so their sockets have no holder here. Also says
/// whether a process holds a connection it opened (<see cref="HoldsOutgoingConnection(int)"/>).
/// </summary>
internal static class ListeningSockets
{
    /// <summary>The kernel's TCP_LISTEN state as /proc/net/tcp writes it.</summary>
    public const string ListenState = "0A";

    public static readonly IReadOnlyList<string> Tables = ["/proc/net/tcp", "/proc/net/tcp6"];

    /// <summary>The listening sockets in the text of one /proc/net/tcp or tcp6 table (its header line and other states skipped).</summary>
    public static IReadOnlyList<ListeningSocket> Parse(string table) =>
        [.. Rows(table).Where(row => row.State == ListenState).Select(row => new ListeningSocket(row.Address, row.Port, row.OwnerUid, row.Inode))];

    /// <summary>Every socket of one /proc/net/tcp or tcp6 table, in any state: its local address and port, state, owner and inode.</summary>
    private static IEnumerable<(IPAddress Address, int Port, string State, int OwnerUid, long Inode)> Rows(string table)
    {
        foreach (var line in table.Split('\n').Skip(1))
        {
            // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode ...
            var fields = line.Split(' ', StringSplitOptions.RemoveEmptyEntries);
            if (fields.Length < 10 || fields[1].Split(':') is not [var address, var port]
                || !int.TryParse(port, NumberStyles.AllowHexSpecifier, CultureInfo.InvariantCulture, out var portNumber)
                || !int.TryParse(fields[7], NumberStyles.None, CultureInfo.InvariantCulture, out var uid)
                || !long.TryParse(fields[9], NumberStyles.None, CultureInfo.InvariantCulture, out var inode)
                || AddressOf(address) is not { } ip)
            {
                continue;
            }
            yield return (ip, portNumber, fields[3], uid, inode);
        }
    }

    /// <summary>
    /// Whether process <paramref name="processId"/> holds a TCP connection it opened: one of its sockets, in any state but
    /// listening, on a local port none of its listening sockets has (an accepted request's connection has the listener's
    /// port, an outgoing call's an ephemeral one). Read from its descriptors and its network namespace's tables
    /// (/proc/PID/net/tcp{,6}); null when they cannot be read (another user's process, one that exited).
    /// </summary>
    public static bool? HoldsOutgoingConnection(int processId)
    {
        try
        {
            var inodes = Directory.EnumerateFileSystemEntries($"/proc/{processId}/fd")
                .Select(fd => new FileInfo(fd).LinkTarget is { } target ? SocketInode(target) : null)
                .OfType<long>()
                .ToHashSet();
            return HoldsOutgoingConnection(Tables.Select(table => table.Replace("/proc/", $"/proc/{processId}/", StringComparison.Ordinal)).Where(File.Exists).Select(File.ReadAllText), inodes);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return null;
        }
    }

    /// <summary>Whether the sockets of <paramref name="inodes"/> in <paramref name="tables"/> include a connection on a port none of them listens on.</summary>
    internal static bool HoldsOutgoingConnection(IEnumerable<string> tables, IReadOnlySet<long> inodes)
    {
        var own = tables.SelectMany(Rows).Where(row => inodes.Contains(row.Inode)).ToList();
        var listening = own.Where(row => row.State == ListenState).Select(row => row.Port).ToHashSet();
        return own.Any(row => row.State != ListenState && !listening.Contains(row.Port));
    }

    /// <summary>The inode a /proc/PID/fd link names when it is a socket ("socket:[12345]"), else null.</summary>
    public static long? SocketInode(string linkTarget) =>
        linkTarget.StartsWith("socket:[", StringComparison.Ordinal) && linkTarget.EndsWith(']')
            && long.TryParse(linkTarget.AsSpan(8, linkTarget.Length - 9), NumberStyles.None, CultureInfo.InvariantCulture, out var inode)
            ? inode
            : null;

    /// <summary>This machine's sockets listening on <paramref name="port"/> that a loopback connection reaches.</summary>
    public static IReadOnlyList<ListeningSocket> OnPort(int port) =>
        [.. Tables.Where(File.Exists).SelectMany(table => Parse(File.ReadAllText(table))).Where(s => s.Port == port && s.AcceptsLoopback)];

    /// <summary>The processes this user can see holding a descriptor of one of <paramref name="inodes"/>, lowest pid first.</summary>
    public static IReadOnlyList<int> Holders(IReadOnlySet<long> inodes)
    {
        var holders = new SortedSet<int>();
        foreach (var process in Directory.EnumerateDirectories("/proc"))
        {
            if (!int.TryParse(Path.GetFileName(process), NumberStyles.None, CultureInfo.InvariantCulture, out var pid))
            {
                continue;
            }
            try
            {
                if (Directory.EnumerateFileSystemEntries(Path.Combine(process, "fd"))
                    .Any(fd => new FileInfo(fd).LinkTarget is { } target && SocketInode(target) is { } inode && inodes.Contains(inode)))
                {
                    holders.Add(pid);
                }
            }
            catch (Exception e) when (e is IOException or UnauthorizedAccessException)
            {
                // Another user's process, or one that exited while being read.
            }
        }
        return [.. holders];
    }

    /// <summary>An address as /proc/net/tcp writes it: the IPv4 or IPv6 bytes in 32-bit words of the host's byte order, in hex.</summary>
    private static IPAddress? AddressOf(string hex)
    {
        if (hex.Length is not (8 or 32))
        {
            return null;
        }
        var bytes = new byte[hex.Length / 2];
        for (var word = 0; word < bytes.Length / 4; word++)
        {
            if (!uint.TryParse(hex.AsSpan(word * 8, 8), NumberStyles.AllowHexSpecifier, CultureInfo.InvariantCulture, out var value))
            {
                return null;
            }
            // The kernel prints each 32-bit word as a number: on a little-endian host its first byte is the lowest.
            if (BitConverter.IsLittleEndian)
            {
                BinaryPrimitives.WriteUInt32LittleEndian(bytes.AsSpan(word * 4), value);
            }
            else
            {
                BinaryPrimitives.WriteUInt32BigEndian(bytes.AsSpan(word * 4), value);
            }
        }
        return new IPAddress(bytes);
    }
}
