/* The physical limit of a feed event reaching N hosts on one machine: a
 * host-shaped process that does nothing but the fan-out, with no database.
 * scripts/feed-relay-probe.py runs it beside flowhost, driven the same way,
 * and its delivery times are the reference for the hosts' (issue 51).
 *
 *   fanout_host member PATH      binds a datagram socket at PATH, prints
 *                                {"method":"ready"} and then, for each
 *                                datagram, an onEchoFeed line carrying it
 *   fanout_host publisher DIR N  for each line {"id":K,"payload":P} read,
 *                                sends P to DIR/0.sock .. DIR/(N-1).sock,
 *                                then answers {"id":K,"result":null}
 *
 * A member writes its line to stdout as a host writes its event to the
 * client, one write per event; the publisher is one process sending one
 * datagram per member, as one listener per machine hands each row on. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static int socket_address(const char *path, struct sockaddr_un *address) {
    memset(address, 0, sizeof *address);
    address->sun_family = AF_UNIX;
    if (strlen(path) >= sizeof address->sun_path) {
        fprintf(stderr, "fanout_host: socket path too long: %s\n", path);
        return -1;
    }
    strcpy(address->sun_path, path);
    return 0;
}

static int write_all(const char *bytes, size_t count) {
    while (count > 0) {
        ssize_t written = write(STDOUT_FILENO, bytes, count);
        if (written < 0 && errno == EINTR) continue;
        if (written <= 0) return -1;
        bytes += written;
        count -= (size_t)written;
    }
    return 0;
}

static int member(const char *path) {
    struct sockaddr_un address;
    if (socket_address(path, &address) != 0) return 2;
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    unlink(path);
    if (fd < 0 || bind(fd, (struct sockaddr *)&address, sizeof address) != 0) {
        perror("fanout_host member");
        return 2;
    }
    const char ready[] = "{\"method\":\"ready\"}\n";
    if (write_all(ready, sizeof ready - 1) != 0) return 1;
    char payload[4096];
    char line[4096 + 128];
    for (;;) {
        ssize_t got = recv(fd, payload, sizeof payload, 0);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return 1;
        int length = snprintf(line, sizeof line, "{\"jsonrpc\":\"2.0\",\"method\":\"onEchoFeed\",\"params\":{\"payload\":%.*s}}\n",
                              (int)got, payload);
        if (length < 0 || (size_t)length >= sizeof line || write_all(line, (size_t)length) != 0) return 1;
    }
}

/* The request's id and payload, found by their keys: the probe writes
 * {"id":K,"payload":P} with P last, so P runs to the closing brace. */
static int parse_request(char *line, long *id, char **payload, size_t *payload_length) {
    char *id_at = strstr(line, "\"id\":");
    char *payload_at = strstr(line, "\"payload\":");
    char *end = strrchr(line, '}');
    if (!id_at || !payload_at || !end || end <= payload_at) return -1;
    *id = strtol(id_at + 5, NULL, 10);
    *payload = payload_at + 10;
    *payload_length = (size_t)(end - *payload);
    return 0;
}

static int publisher(const char *folder, long members) {
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        perror("fanout_host publisher");
        return 2;
    }
    struct sockaddr_un *addresses = calloc((size_t)members, sizeof *addresses);
    if (!addresses) return 2;
    for (long index = 0; index < members; index++) {
        char path[sizeof addresses[0].sun_path + 32];
        snprintf(path, sizeof path, "%s/%ld.sock", folder, index);
        if (socket_address(path, &addresses[index]) != 0) return 2;
    }
    char *line = NULL;
    size_t capacity = 0;
    while (getline(&line, &capacity, stdin) > 0) {
        long id;
        char *payload;
        size_t length;
        if (parse_request(line, &id, &payload, &length) != 0) {
            fprintf(stderr, "fanout_host: not a request: %s", line);
            return 2;
        }
        for (long index = 0; index < members; index++) {
            while (sendto(fd, payload, length, 0, (struct sockaddr *)&addresses[index], sizeof addresses[index]) < 0) {
                if (errno != EINTR && errno != EAGAIN && errno != ENOBUFS) {
                    perror("fanout_host sendto");
                    return 1;
                }
            }
        }
        char reply[96];
        int reply_length = snprintf(reply, sizeof reply, "{\"jsonrpc\":\"2.0\",\"id\":%ld,\"result\":null}\n", id);
        if (write_all(reply, (size_t)reply_length) != 0) return 1;
    }
    free(line);
    free(addresses);
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "member") == 0) return member(argv[2]);
    if (argc == 4 && strcmp(argv[1], "publisher") == 0) return publisher(argv[2], strtol(argv[3], NULL, 10));
    fprintf(stderr, "usage: fanout_host member PATH | fanout_host publisher DIR COUNT\n");
    return 2;
}
