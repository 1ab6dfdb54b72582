using System.Net;
using System.Net.Sockets;

namespace ConcurrencySandbox.Experiments.Receive;

/// <summary>A connected TCP socket pair on 127.0.0.1: a real transport with kernel buffers and system calls, not an in-memory queue.</summary>
public sealed class LoopbackConnection : IDisposable
{
    private LoopbackConnection(Socket sender, Socket receiver)
    {
        Sender = sender;
        Receiver = receiver;
    }

    public Socket Sender { get; }

    public Socket Receiver { get; }

    public static LoopbackConnection Open()
    {
        using var listener = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        listener.Bind(new IPEndPoint(IPAddress.Loopback, 0));
        listener.Listen(1);
        var sender = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
        try
        {
            sender.Connect(listener.LocalEndPoint!);
            var receiver = listener.Accept();
            return new LoopbackConnection(sender, receiver);
        }
        catch
        {
            sender.Dispose();
            throw;
        }
    }

    /// <summary>Closes both ends; a receive or send blocked on either returns at once with an error.</summary>
    public void Dispose()
    {
        Sender.Dispose();
        Receiver.Dispose();
    }
}
