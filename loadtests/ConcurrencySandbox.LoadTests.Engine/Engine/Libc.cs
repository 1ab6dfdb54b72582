using System.Runtime.InteropServices;

namespace ConcurrencySandbox.LoadTests.Engine;

/// <summary>
/// The Linux system calls the runner's own socket loop makes (<see cref="EpollLoop"/>): epoll, an eventfd to wake it,
/// non-blocking TCP sockets, send and recv. x86-64 only, where <c>struct epoll_event</c> is packed (12 bytes).
/// </summary>
internal static unsafe partial class Libc
{
    public const int EpollCtlAdd = 1;
    public const uint EpollIn = 0x001;
    public const uint EpollOut = 0x004;
    public const uint EpollErr = 0x008;
    public const uint EpollHup = 0x010;
    public const uint EpollRdHup = 0x2000;
    public const uint EpollEdgeTriggered = 1u << 31;
    public const int CloseOnExec = 0x80000;
    public const int NonBlocking = 0x800;
    public const int SockStream = 1;
    public const int SolSocket = 1;
    public const int SoError = 4;
    public const int IpProtoTcp = 6;
    public const int TcpNoDelay = 1;
    public const int MsgNoSignal = 0x4000;
    public const int EAgain = 11;
    public const int EIntr = 4;
    public const int EInProgress = 115;

    private const string Library = "libc";

    /// <summary>x86-64's <c>struct epoll_event</c>: the events, then 8 bytes of data with no padding between.</summary>
    [StructLayout(LayoutKind.Sequential, Pack = 4)]
    public struct EpollEvent
    {
        public uint Events;
        public ulong Data;
    }

    /// <summary>True where these calls are made: Linux on x86-64.</summary>
    public static bool IsSupported => OperatingSystem.IsLinux() && RuntimeInformation.ProcessArchitecture == Architecture.X64;

    [LibraryImport(Library, EntryPoint = "epoll_create1", SetLastError = true)]
    public static partial int EpollCreate1(int flags);

    [LibraryImport(Library, EntryPoint = "epoll_ctl", SetLastError = true)]
    public static partial int EpollCtl(int epoll, int operation, int fd, EpollEvent* watched);

    [LibraryImport(Library, EntryPoint = "epoll_wait", SetLastError = true)]
    public static partial int EpollWait(int epoll, EpollEvent* events, int maxEvents, int timeoutMs);

    [LibraryImport(Library, EntryPoint = "eventfd", SetLastError = true)]
    public static partial int EventFd(uint initialValue, int flags);

    [LibraryImport(Library, EntryPoint = "read", SetLastError = true)]
    public static partial nint Read(int fd, void* buffer, nint count);

    [LibraryImport(Library, EntryPoint = "write", SetLastError = true)]
    public static partial nint Write(int fd, void* buffer, nint count);

    [LibraryImport(Library, EntryPoint = "close", SetLastError = true)]
    public static partial int Close(int fd);

    [LibraryImport(Library, EntryPoint = "socket", SetLastError = true)]
    public static partial int Socket(int domain, int type, int protocol);

    [LibraryImport(Library, EntryPoint = "connect", SetLastError = true)]
    public static partial int Connect(int fd, byte* address, int addressBytes);

    [LibraryImport(Library, EntryPoint = "setsockopt", SetLastError = true)]
    public static partial int SetSockOpt(int fd, int level, int name, int* value, int valueBytes);

    [LibraryImport(Library, EntryPoint = "getsockopt", SetLastError = true)]
    public static partial int GetSockOpt(int fd, int level, int name, int* value, int* valueBytes);

    [LibraryImport(Library, EntryPoint = "send", SetLastError = true)]
    public static partial nint Send(int fd, byte* buffer, nint count, int flags);

    [LibraryImport(Library, EntryPoint = "recv", SetLastError = true)]
    public static partial nint Recv(int fd, byte* buffer, nint count, int flags);

    /// <summary>The last call's errno, as its message says it ("Connection refused").</summary>
    public static string Message(int errno) => Marshal.GetPInvokeErrorMessage(errno);
}
