import configparser, socket, sys
c = configparser.ConfigParser()
if not c.read('/app/server.ini'):
    sys.exit('no /app/server.ini')
s = c['server']
host, port = s.get('host'), s.getint('port')
token = s.get('token', '')
if token != open('/app/token.txt').read().strip():
    sys.exit('bad token')
srv = socket.socket()
srv.bind((host, port))
srv.listen(1)
cli = socket.create_connection((host, port))
conn, _ = srv.accept()
cli.sendall(b'ping')
print('serving on', host, port, conn.recv(4).decode())
