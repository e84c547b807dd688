"""The GGP match protocol: a player that answers a game manager over HTTP
(:mod:`client.ggp.http_player`), a game manager that runs matches between any such players
(:mod:`client.ggp.game_manager`), and the messages both speak (:mod:`client.ggp.messages`).
"""
