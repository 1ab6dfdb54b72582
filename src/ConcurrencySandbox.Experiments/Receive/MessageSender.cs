using System.Buffers.Binary;
using System.Net.Sockets;
using ConcurrencySandbox.Contracts.Receive;

namespace ConcurrencySandbox.Experiments.Receive;

/// <summary>Writes the plan's messages, each starting with its sequence number, on a thread of its own so its CPU is not the receiver's.</summary>
internal sealed class MessageSender
{
    private MessageSender(Thread thread) => Thread = thread;

    public Thread Thread { get; }

    /// <summary>Why sending stopped early, if it did; the connection is then closed so the receiver stops too.</summary>
    public Exception? Failure { get; private set; }

    public static MessageSender Start(LoopbackConnection connection, ReceivePlan plan, CancellationToken cancellationToken)
    {
        MessageSender? sender = null;
        var thread = new Thread(() =>
        {
            try
            {
                Send(connection.Sender, plan, cancellationToken);
            }
            catch (Exception failure)
            {
                sender!.Failure = failure;
                connection.Dispose();
            }
        })
        {
            IsBackground = true,
            Name = "receive-sender",
        };
        sender = new MessageSender(thread);
        thread.Start();
        return sender;
    }

    private static void Send(Socket socket, ReceivePlan plan, CancellationToken cancellationToken)
    {
        var message = new byte[plan.MessageBytes];
        for (var sequence = 0L; sequence < plan.Messages && !cancellationToken.IsCancellationRequested; sequence++)
        {
            BinaryPrimitives.WriteInt64LittleEndian(message, sequence);
            var sent = 0;
            while (sent < message.Length)
            {
                sent += socket.Send(message, sent, message.Length - sent, SocketFlags.None);
            }

            if (plan.IntervalMs > 0 && sequence + 1 < plan.Messages)
            {
                cancellationToken.WaitHandle.WaitOne(plan.IntervalMs);
            }
        }
    }
}
