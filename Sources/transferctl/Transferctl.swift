import ArgumentParser

/// transferctl: transferd from the command line. Every command talks to the HTTP API only.
@main
struct Transferctl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "transferctl",
        abstract: "Run and watch transfers on a transferd service.",
        discussion: """
            Connects to $TRANSFERD_URL (default http://127.0.0.1:8080) with the API key in $TRANSFERD_API_KEY, or \
            --url and --api-key. Read commands take --json and then print exactly the API's JSON.

            Exit status: 0 success; 1 a transfer failed, or a local file could not be read or written; 2 transferd \
            refused a request (its problem's detail is printed); 3 transferd could not be reached; 64 a usage error \
            or a missing API key.

            Examples:
              transferctl get https://example.com/big.iso -O          follow it with a progress bar, then save it here
              transferctl get URL1 URL2 -o downloads/ --no-wait       enqueue only; follow later with watch or ls
              transferctl put report.csv https://example.com/upload --method POST --multipart file
              transferctl ls -s transferctl --state running
              transferctl watch                                       every session's tasks, live
              transferctl events -s transferctl --follow --json       one event per line, for scripts
              transferctl fetch add https://example.com/prices.json --every 900   fetch it every 15 minutes
            """,
        subcommands: [
            GetCommand.self, PutCommand.self, ListCommand.self, ShowCommand.self, WatchCommand.self, TaskActionCommand<Cancel>.self,
            TaskActionCommand<Suspend>.self, TaskActionCommand<Resume>.self, SessionsCommand.self, EventsCommand.self,
            DeliveriesCommand.self, FetchCommand.self,
        ]
    )
}
